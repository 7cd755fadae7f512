/**
 * How big user data may be, in bytes as AWS counts them: the raw bytes before base64. Constants only, so
 * the renderer's tests and the policy pack read the same figures.
 */

/** AWS's limit on launch-template user data: 16 KB before base64. */
export const USER_DATA_LIMIT_BYTES = 16384;

/**
 * The budget every group's user data stays within, 2 KB below AWS's limit for what config changes (names,
 * certificate SANs, labels). User data is gzipped already: when a change reaches it, the bootstrap moves to
 * a content-addressed bundle that a small loader fetches (docs/nodes.md).
 */
export const USER_DATA_BUDGET_BYTES = 14 * 1024;
