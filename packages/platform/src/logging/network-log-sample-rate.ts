/** How many of the publishers' high-volume calls httpLogger logs (its `sampleRate`), from the process settings. */
const DEFAULT_NETWORK_LOG_SAMPLE_RATE = 0.01;

/** NETWORK_LOG_SAMPLE_RATE: 0 to 1 (1 logs every network call, as for every other path). */
export function networkLogSampleRateOf(env: NodeJS.ProcessEnv): number {
  const raw = env.NETWORK_LOG_SAMPLE_RATE;
  if (raw === undefined || raw === '') return DEFAULT_NETWORK_LOG_SAMPLE_RATE;
  const rate = Number(raw);
  if (!/^[0-9.]+$/.test(raw) || !(rate >= 0 && rate <= 1)) throw new Error(`NETWORK_LOG_SAMPLE_RATE: "${raw}" is not a number from 0 to 1`);
  return rate;
}
