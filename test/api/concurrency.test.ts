import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFlakyServer, type FlakyServer } from './fixtures/flaky-server.js';
import { testClient } from './fixtures/client.js';
import { Semaphore } from '../../src/api/semaphore.js';

let server: FlakyServer;

beforeEach(async () => {
  server = await startFlakyServer();
});
afterEach(async () => {
  await server.close();
});

describe('bounded concurrency', () => {
  it('never has more than `concurrency` requests in flight', async () => {
    const { client } = testClient(server.url, { concurrency: 3 });
    server.script('GET', '/v2/slow', [{ status: 200, delayMs: 30, body: {} }]);
    await Promise.all(Array.from({ length: 20 }, () => client.get('/v2/slow')));
    await client.close();
    expect(server.seen).toHaveLength(20);
    expect(server.maxInFlight).toBe(3);
  });

  it('reuses keep-alive connections', async () => {
    const { client } = testClient(server.url, { concurrency: 2 });
    server.script('GET', '/v2/x', [{ status: 200, body: {} }]);
    for (let i = 0; i < 20; i++) await client.get('/v2/x');
    await client.close();
    expect(server.seen).toHaveLength(20);
    expect(server.connections).toBeLessThanOrEqual(2);
  });
});

describe('Semaphore', () => {
  it('runs waiters in arrival order', async () => {
    const gate = new Semaphore(1);
    const order: number[] = [];
    let open!: () => void;
    const first = gate.run(() => new Promise<void>((r) => (open = r)).then(() => void order.push(0)));
    const rest = [1, 2, 3].map((n) => gate.run(async () => void order.push(n)));
    await Promise.resolve();
    expect(gate.load).toEqual({ active: 1, waiting: 3 });
    open();
    await Promise.all([first, ...rest]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot when a task throws', async () => {
    const gate = new Semaphore(1);
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 42)).toBe(42);
  });
});
