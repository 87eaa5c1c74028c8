import { describe, expect, it } from 'vitest';
import { readSecrets } from '../../src/signature/secrets.js';

describe('readSecrets', () => {
  it('turns one secret into a list and copies a list, so later changes by the caller do not leak in', () => {
    const sparse = new Array<string>(2);
    sparse[1] = 'a';
    expect(readSecrets(sparse)).toBeUndefined();
    expect(readSecrets('whsec_one')).toEqual(['whsec_one']);
    const list = ['a', 'b'];
    const read = readSecrets(list)!;
    list.push('c');
    expect(read).toEqual(['a', 'b']);
  });

  it('keeps secrets byte for byte, spaces included', () => {
    expect(readSecrets([' a ', 'b\n'])).toEqual([' a ', 'b\n']);
  });

  it('has no usable secret for an empty list, an empty or blank string anywhere or a value that is not a string', () => {
    for (const value of [
      '',
      ' ',
      '\t\r\n',
      [],
      ['a', ''],
      ['a', '   '],
      [''],
      [1],
      [null],
      null,
      undefined,
      7,
      { length: 1, 0: 'a' },
    ]) {
      expect(readSecrets(value)).toBeUndefined();
    }
  });
});
