// `perfgate bot` stops on SIGTERM at any time: also while it starts and GitHub takes the
// connection but never answers (the App's first call would otherwise wait for good).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  botEnvironment, command, openPulls, PERFGATE, spawnedBots, waitFor,
} from '../../support/bot.mjs';

describe('perfgate bot told to stop', () => {
  let folder;
  let silent;
  const sockets = new Set();
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-stop-'));
    // A GitHub that accepts connections and reads requests, and answers nothing.
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it('SIGTERM while it starts and GitHub does not answer: it stops at once, exit 0', async () => {
    const env = botEnvironment({ folder, apiUrl: `http://127.0.0.1:${silent.address().port}` });
    const child = spawn(process.execPath, [PERFGATE, 'bot', '--port', '0'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await waitFor('the bot to ask GitHub who it is', () => sockets.size > 0, { timeoutMs: 10_000 });
      const told = Date.now();
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited, new Promise((resolve) => { setTimeout(() => resolve('still running 5 s after SIGTERM'), 5000); })]);
      assert.deepEqual(stopped, { code: 0, signal: null });
      assert.ok(Date.now() - told < 5000);
      assert.equal(stderr, 'perfgate bot: SIGTERM: stopped before it had started\n');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

describe('perfgate bot told to stop while a job waits on GitHub', () => {
  const fx = spawnedBots({ prs: [7] });

  it('SIGTERM: the job in hand gets its grace, then its call is ended; exit 0, and the next start finishes the job', async () => {
    const first = await fx.spawn();
    await openPulls(first, [7]);
    const hold = fx.gh.holdNext('actions/create-workflow-dispatch');
    await command(fx.gh, first, 'maintainer', '/perf quick', { pr: 7 });
    await hold.arrived;
    const told = Date.now();
    first.child.kill('SIGTERM');
    assert.deepEqual(await first.exited, { code: 0, signal: null });
    // 10 s of grace, well inside the 30 s of the call's own deadline.
    assert.ok(Date.now() - told < 20_000, `stopped ${Date.now() - told} ms after SIGTERM`);
    hold.release();
    const second = await fx.spawn();
    await waitFor('the command dispatched once', () => fx.gh.state.dispatches.length === 1 && fx.gh.state.checkRuns('perfgate-test/fork').length === 1, { timeoutMs: 30_000 });
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
