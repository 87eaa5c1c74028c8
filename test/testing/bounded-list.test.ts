import { describe, expect, it } from 'vitest';
import { BoundedList } from '../../src/testing/bounded-list.js';

const contents = <T>(list: BoundedList<T>) =>
  Array.from({ length: list.pushed }, (_, n) => list.at(n)).filter((item) => item !== undefined);

describe('BoundedList', () => {
  it('keeps every item by position until it is full', () => {
    const list = new BoundedList<string>(3);
    list.push('a');
    list.push('b');
    expect([list.pushed, list.size]).toEqual([2, 2]);
    expect(contents(list)).toEqual(['a', 'b']);
    expect(list.at(2)).toBeUndefined();
  });

  it('forgets the oldest item for each one pushed past its limit, positions unchanged', () => {
    const list = new BoundedList<string>(3);
    for (const item of ['a', 'b', 'c', 'd', 'e']) list.push(item);
    expect([list.pushed, list.size]).toEqual([5, 3]);
    expect([list.at(0), list.at(1)]).toEqual([undefined, undefined]);
    expect([list.at(2), list.at(3), list.at(4)]).toEqual(['c', 'd', 'e']);
    expect(list.at(5)).toBeUndefined();
    expect(list.at(-1)).toBeUndefined();
  });

  it('keeps the newest item alone with a limit of one', () => {
    const list = new BoundedList<number>(1);
    for (let n = 0; n < 10; n++) list.push(n);
    expect(contents(list)).toEqual([9]);
  });

  it('lists its newest items oldest first, never more than it keeps', () => {
    const list = new BoundedList<string>(3);
    for (const item of ['a', 'b', 'c', 'd']) list.push(item);
    expect(list.newest()).toEqual(['b', 'c', 'd']);
    expect(list.newest(2)).toEqual(['c', 'd']);
    expect(list.newest(10)).toEqual(['b', 'c', 'd']);
    expect(new BoundedList<string>(3).newest()).toEqual([]);
  });
});
