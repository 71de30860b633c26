/** Monthly plan limits run on calendar months in UTC. */
export function usageMonth(at: Date): { key: string; secondsToNext: number } {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return {
    key: at.toISOString().slice(0, 7),
    secondsToNext: Math.max(1, Math.ceil((next - at.getTime()) / 1000)),
  };
}
