/**
 * The snapshot's gzip on worker threads (libs/store gzip-json.util.ts `threadedGzipCodec`) with the built thread entry
 * (`gzip-slab-worker.js` of the suite's build, test/global-setup.ts): the same bytes as zlib on libuv's pool, member
 * for member, and a stored snapshot encoded that way reads back as the snapshot.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetSnapshot } from '@app/domain';
import { compressedPartsBuffer, compressedWriter, defaultGzipSlabEntry, GZIP_CODEC, threadedGzipCodec, type SlabCodec } from '../../libs/store/src/gzip-json.util';
import { encodeSnapshotParts, parseStoredSnapshot } from '../../libs/store/src/scan-snapshot.repository';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('the snapshot gzip on worker threads', () => {
  it('runs from the build and writes the bytes libuv\'s pool writes, slab for slab', async () => {
    expect(existsSync(defaultGzipSlabEntry())).toBe(true);
    // About 40 MB: five slabs, four of them compressed on the threads.
    const text = Array.from({ length: 700_000 }, (_, i) => `{"serverId":"i-${i.toString(36)}","serverIp":"10.${i % 250}.${(i >> 8) % 250}.${i % 7}","port":${30000 + (i % 2000)},"description":"k8s/${30000 + (i % 2000)}/svc-${i % 97}/ns/c${i % 13}"}`).join('\n');
    const encode = async (codec: SlabCodec) => {
      const w = compressedWriter(codec);
      for (let at = 0; at < text.length; at += 500_000) await w.write(text.slice(at, at + 500_000));
      return w.endParts();
    };
    const threaded = await encode(threadedGzipCodec());
    const libuv = await encode(GZIP_CODEC);
    expect(threaded.parts.length).toBeGreaterThanOrEqual(4);
    expect(threaded.parts).toEqual(libuv.parts);
    expect(gunzipSync(compressedPartsBuffer(threaded)).toString('utf8') === text).toBe(true);
  });

  it('stores a snapshot of several slabs that reads back as the snapshot', async () => {
    // The sample fleet's account repeated under new ids (its objects shared, so building it costs nothing) until the
    // snapshot's text fills more than two slabs.
    const sample = loadFleetDirectory(SAMPLE);
    const account = sample.accounts[0]!;
    const snapshot: FleetSnapshot = { ...sample, accounts: Array.from({ length: 400 }, (_, i) => ({ ...account, accountId: `${1_000_000_000_000 + i}` })) };
    const parts = await encodeSnapshotParts(snapshot);
    expect(parts.rawBytes).toBeGreaterThan(16 * 1024 * 1024);
    // Compared as JSON text: the deep equality of so large a fleet would cost more than everything else here.
    expect(JSON.stringify(parseStoredSnapshot(compressedPartsBuffer(parts), parts.encoding, parts.rawBytes)) === JSON.stringify(snapshot)).toBe(true);
  });
});
