export function holdFreePorts(count: number): Promise<number[]>;
export function releasePort(port: number): Promise<void>;
export function releaseHeldPorts(except?: number[]): Promise<void>;
