/**
 * The report bench alone (tests/bench/report.ts; `bash scripts/bench.sh` runs it as its `report` phase):
 *
 *   MONGO_URL=mongodb://127.0.0.1:27034/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --import tsx tests/bench/report.bench.ts [campaigns a day=1000] [calls per case=20] [platforms a campaign a day=1]
 */
import { reportLines, timeReports } from './report';

const mongoUrl = process.env.MONGO_URL;
if (!mongoUrl) throw new Error('MONGO_URL is required');
timeReports({ mongoUrl, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', pairs: Number(process.argv[2] ?? 1_000), calls: Number(process.argv[3] ?? 20), platformsEach: Number(process.argv[4] ?? 1), log: console.log })
  .then((timings) => {
    const lines = reportLines(timings);
    const widths = lines[0]!.map((_, column) => Math.max(...lines.map((row) => row[column]!.length)));
    for (const row of lines) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
