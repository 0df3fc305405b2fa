import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../cli-error';
import { threadsOf } from './scan.command';

describe(threadsOf.name, () => {
  it('takes a whole number of at least 1, and leaves the choice to the fleet\'s size when --threads is not given', () => {
    expect(threadsOf('1')).toBe(1);
    expect(threadsOf('8')).toBe(8);
    expect(threadsOf(undefined)).toBeUndefined();
  });

  it.each(['0', '-2', '1.5', '2e1', 'two', '', ' '])('refuses %j naming the flag and the value', (raw) => {
    expect(() => threadsOf(raw)).toThrow(CliUsageError);
    expect(() => threadsOf(raw)).toThrow(`--threads: expected a whole number of at least 1, got "${raw}"`);
  });
});
