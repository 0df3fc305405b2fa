/**
 * Where in an input file a problem is: the JSON path of a parse issue and the error that names file, path and
 * expectation. Shared by the readers of user files (scan config, fleet directory) and the validation of API
 * responses.
 */
import { FleetAuditError } from '@app/errors';

/**
 * A JSON path (`$.accounts[0].regions`, `$["odd key"]`) of a path of keys as zod reports it (`issue.path`).
 * @returns `$` for the empty path
 */
export function jsonPathOf(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const p of path)
    out +=
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_][\w]*$/.test(String(p))
          ? `.${String(p)}`
          : `[${JSON.stringify(String(p))}]`;
  return out;
}

/**
 * A problem in an input file: which file, where in it (JSON path), and what was expected; the message is
 * `<file>: <jsonPath>: <expected>` (one line). Permanent: the file must change. Subclasses set `name` and `code`.
 */
export abstract class FileLocatedError extends FleetAuditError {
  /** The file must change. */
  readonly permanent = true;
  /**
   * @param file the file path (as given, or relative to the root it was read from)
   * @param jsonPath JSON path inside the file (`$.accounts[0].regions`), `$` for the whole file
   * @param expected what was expected there
   */
  constructor(
    readonly file: string,
    readonly jsonPath: string,
    readonly expected: string,
  ) {
    super(`${file}: ${jsonPath}: ${expected}`);
  }
}
