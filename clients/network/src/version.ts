/** This package's version (package.json; a unit test keeps them equal), sent in the User-Agent. */
export const CLIENT_VERSION = '0.3.0';
