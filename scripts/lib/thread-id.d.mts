export function linuxThreadId(): number | null;
