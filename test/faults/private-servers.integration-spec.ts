/**
 * The private PostgreSQL and Redis starters (bench/chaos/private-servers.ts) when the free port they found is taken
 * before their server binds it: the server starts on another port, and a Redis of another process answering on the
 * taken port is neither taken for the new server nor touched.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { freeTcpPort, startPrivatePostgres, startPrivateRedis, type PrivateRedis } from '../../bench/chaos/private-servers';

/** A port source that hands out `first` once, then free ports; counts what it handed out. */
function takenFirst(first: number): { next: () => Promise<number>; handed: number[] } {
  const handed: number[] = [];
  return {
    handed,
    next: async () => {
      const port = handed.length === 0 ? first : await freeTcpPort();
      handed.push(port);
      return port;
    },
  };
}

const ping = (port: number) => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8', timeout: 2_000 }).stdout.trim();

describe('private servers on a port taken between finding it and binding it', () => {
  let holder: Server;
  let held = 0;
  // The connections redis-cli opened to the holder (it accepts them and never answers): closed with it.
  const connections = new Set<Socket>();

  beforeAll(async () => {
    holder = createServer((socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    held = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('PostgreSQL starts on the next free port and answers there', async () => {
    const ports = takenFirst(held);
    const pg = await startPrivatePostgres({ portSource: ports.next });
    try {
      expect(ports.handed).toHaveLength(2);
      expect(pg.port).toBe(ports.handed[1]);
      expect(pg.port).not.toBe(held);
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      try {
        expect((await client.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n).toBe(1);
      } finally {
        await client.end();
      }
    } finally {
      pg.destroy();
    }
  });

  it("Redis starts on the next free port, leaving another process's Redis on the taken one alone", async () => {
    const other = await startPrivateRedis();
    let mine: PrivateRedis | undefined;
    try {
      const ports = takenFirst(other.port);
      mine = await startPrivateRedis({ portSource: ports.next });
      expect(ports.handed).toEqual([other.port, mine.port]);
      expect(mine.port).not.toBe(other.port);
      expect(ping(mine.port)).toBe('PONG');
      // The other server still runs: the failed attempt neither adopted nor stopped it.
      expect(ping(other.port)).toBe('PONG');
      // A port held by something that is not Redis is refused too.
      const onHeld = takenFirst(held);
      const third = await startPrivateRedis({ portSource: onHeld.next });
      expect(onHeld.handed).toHaveLength(2);
      expect(ping(third.port)).toBe('PONG');
      await third.stop();
    } finally {
      await mine?.stop();
      await other.stop();
    }
  });

  it('Redis gives up with an error naming the port once every attempt found it taken', async () => {
    const other = await startPrivateRedis();
    try {
      await expect(startPrivateRedis({ portSource: async () => other.port })).rejects.toThrow(
        new RegExp(`could not serve port ${other.port}: it exited \\(\\d+\\); process \\d+ answers there`),
      );
      expect(ping(other.port)).toBe('PONG');
    } finally {
      await other.stop();
    }
  });
});
