/**
 * The middle value, the figure every bench reports over its rounds; of an even count the mean of the
 * two middle ones (taking the upper one made a two-round run optimistic for throughputs and
 * pessimistic for times, the same bar passing or failing on which half it read).
 */
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
