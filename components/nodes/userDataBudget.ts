/**
 * How big user data may be, in bytes as AWS counts them: the raw bytes before base64. Constants only, so
 * the renderer's tests and the policy pack read the same figures.
 */

/** AWS's limit on launch-template user data: 16 KB before base64. */
export const USER_DATA_LIMIT_BYTES = 16384;

/**
 * The budget every group's user data stays within: user data is only the loader (userData.ts `renderLoader`,
 * about 600 bytes gzipped), which fetches the group's installer from the bootstrap bucket, where size is no
 * limit. Anything over this belongs in the installer.
 */
export const USER_DATA_BUDGET_BYTES = 2 * 1024;
