/** The product version; a test keeps it equal to package.json's (the single executable has no package.json). */
export const VERSION = '0.1.0';
