/**
 * Preloaded (`node --import tsx --import bench/lib/profile-on-signal.ts …`) into a server a bench
 * runs as a child process: the first SIGUSR2 starts a CPU profile (bench/lib/profile.ts), the
 * second writes it to BENCH_PROFILE, so the profile covers the measured part only, not the start
 * or the warm-up. (SIGUSR1 is Node's own: it opens the inspector.)
 */
import { startProfile } from './profile.js';

const file = process.env.BENCH_PROFILE;
if (file) {
  let running: Awaited<ReturnType<typeof startProfile>> | null = null;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!running) {
        running = await startProfile();
        process.stderr.write('profile: started\n');
      } else {
        await running.stop(file);
        running = null;
        process.stderr.write(`profile: written to ${file}\n`);
      }
    })();
  });
}
