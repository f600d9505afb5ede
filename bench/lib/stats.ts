/** The middle value (the upper one of an even count), the figure every bench reports over its rounds. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
