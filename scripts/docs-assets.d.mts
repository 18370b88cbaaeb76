export const assetsDirectory: string;
export function writeDocsAssets(): { version: string; path: string; bytes: number; sri: string };
