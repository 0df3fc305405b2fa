/**
 * Writing a report file (`scan -o FILE`): the text goes to a temporary file beside the target, which is
 * then renamed over it, so a reader never sees a half-written report (STYLE: never half-written data).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliUsageError } from '../cli-error';

/**
 * Write `text` to `file` atomically (temporary file + rename in the same directory).
 * @throws CliUsageError naming the file and the errno code when it cannot be written
 */
export function writeOutput(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new CliUsageError(`--output ${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? 'write error'})`);
  }
}
