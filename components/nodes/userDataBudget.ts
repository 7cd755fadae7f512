/**
 * How big user data may be, in bytes as AWS counts them: the raw bytes before base64. Constants only, so
 * the renderer's tests and the policy pack read the same figures.
 */

/** AWS's limit on launch-template user data: 16 KB before base64. */
export const USER_DATA_LIMIT_BYTES = 16384;

/**
 * The budget every group's user data stays within, 1 KB below AWS's limit for what config changes (names,
 * certificate SANs, labels): gzipped, a 63-character cluster name adds about 30 bytes to a control-plane
 * group's user data (docs/nodes.md). User data is gzipped already: the next change that reaches the budget
 * moves the bootstrap to a content-addressed bundle that a small loader fetches (docs/nodes.md).
 */
export const USER_DATA_BUDGET_BYTES = 15 * 1024;
