import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';

describe('asyncStdout', () => {
  it('writes a line of a quiet process within a few seconds, and what is left when the process exits', async () => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', 'async-logger.ts')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

    // Far less than the 4 KB buffer: only the periodic flush can bring it out while the process runs.
    const deadline = Date.now() + 10_000;
    while (!output.includes('first line') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).to.include('first line');
    expect(output).not.to.include('last line');

    child.stdin.write('go\n');
    expect(await exited).to.equal(0);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; service: string });
    expect(lines.map((line) => line.msg)).to.deep.equal(['first line', 'last line']);
    expect(lines[1]?.service).to.equal('fixture');
  });
});
