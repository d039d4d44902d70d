/** A line filter for wrangler's stderr that shortens the runtime's reports of expected outbound failures (runtime-noise.mjs). */
export function outboundNoiseFilter(write: (line: string) => void, now?: () => number, dim?: (text: string) => string): (line: string) => void;
