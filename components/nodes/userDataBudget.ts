/**
 * How big user data may be, in bytes as AWS counts them: the raw bytes before base64. Constants only, so
 * the renderer's tests and the policy pack read the same figures.
 */

/** AWS's limit on launch-template user data: 16 KB before base64. */
export const USER_DATA_LIMIT_BYTES = 16384;

/**
 * The budget every group's user data stays within, a margin below AWS's limit. When a change reaches it,
 * gzip the user data next, then a loader fetching a content-addressed bundle (docs/nodes.md).
 */
export const USER_DATA_BUDGET_BYTES = 12 * 1024;
