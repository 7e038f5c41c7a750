import { canonicalJson } from '../../../src/domain/canonical-json';

describe('canonical JSON', () => {
  test('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
  test('drops undefined fields; undefined itself is null', () => {
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
    expect(canonicalJson(undefined)).toBe('null');
  });
  test('uses the JSON form of values (a Date is its ISO string)', () => {
    expect(canonicalJson({ at: new Date('2026-11-23T00:00:00Z'), f: () => 1 })).toBe(
      '{"at":"2026-11-23T00:00:00.000Z"}',
    );
  });
});
