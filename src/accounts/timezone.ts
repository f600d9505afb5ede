/** True for names the runtime's IANA database knows (e.g. Europe/Berlin, UTC). */
export function isValidIanaZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
