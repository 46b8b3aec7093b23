/** The package's version, sent in every request's `User-Agent`; equal to package.json's. */
export const SDK_VERSION = "0.2.0";
