import { TemplateResolutionError } from '../../../src/domain/errors';
import { referencedSteps, resolveTemplates, scanTemplates } from '../../../src/domain/templates';

const results = {
  0: {
    data: [
      { id: 's1', weight: 10 },
      { id: 's2', weight: 20 },
    ],
  },
  1: { data: { facility: { id: 'f9', name: 'Hannover' }, tags: ['a', 'b'] } },
  2: { data: [{ items: [{ code: 'x' }] }, { items: [{ code: 'y' }, { code: 'z' }] }] },
  3: { data: null },
};

function failure(fn: () => unknown): TemplateResolutionError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TemplateResolutionError) return e;
    throw e;
  }
  throw new Error('expected a TemplateResolutionError');
}

describe('template parsing', () => {
  it('finds every reference with its step, path and location', () => {
    const scan = scanTemplates({
      ids: '${step[0].data.*.id}',
      nested: { list: ['x ${step[2].data[0].items} y ${step[1].data.facility.id}'] },
    });
    expect(scan.refs.map((r) => [r.step, r.location, r.raw])).toEqual([
      [0, 'ids', '${step[0].data.*.id}'],
      [2, 'nested.list[0]', '${step[2].data[0].items}'],
      [1, 'nested.list[0]', '${step[1].data.facility.id}'],
    ]);
    expect(scan.refs[0]!.path).toEqual([{ kind: 'key', key: 'data' }, { kind: 'map' }, { kind: 'key', key: 'id' }]);
    expect(scan.malformed).toEqual([]);
  });

  it('reports strings that look like broken templates', () => {
    expect(
      scanTemplates({ a: '${step[0].data[*].id}', b: '${step[one]}', c: 'fine ${other}' }).malformed.map(
        (m) => m.location,
      ),
    ).toEqual(['a', 'b']);
  });

  it('referencedSteps is sorted and unique', () => {
    expect(referencedSteps({ a: '${step[3].data}', b: ['${step[1].data}', '${step[3].data.x}'], c: 5 })).toEqual([
      1, 3,
    ]);
    expect(referencedSteps({ a: 'no templates' })).toEqual([]);
  });

  it('referencedSteps names the steps of exactly the templates scanTemplates finds, not of malformed ones', () => {
    const params = {
      whole: '${step[2].data.*.id}',
      inside: 'from ${step[0].data[0].id} to ${step[4].data.name}',
      nested: { deep: [{ ids: '${step[1].data}' }] },
      malformed: '${step[7].data[*].id} and ${step[x]}',
      other: 12,
    };
    expect(referencedSteps(params)).toEqual(
      [...new Set(scanTemplates(params).refs.map((r) => r.step))].sort((a, b) => a - b),
    );
    expect(referencedSteps(params)).toEqual([0, 1, 2, 4]);
  });
});

describe('resolveTemplates', () => {
  it('maps over arrays with .*', () => {
    expect(resolveTemplates({ shipment_ids: '${step[0].data.*.id}' }, results)).toEqual({ shipment_ids: ['s1', 's2'] });
  });

  it('nests maps: one array per mapped level', () => {
    expect(resolveTemplates({ codes: '${step[2].data.*.items.*.code}' }, results)).toEqual({
      codes: [['x'], ['y', 'z']],
    });
  });

  it('indexes arrays with [i] and walks nested keys', () => {
    expect(
      resolveTemplates(
        { first: '${step[0].data[1].id}', fid: '${step[1].data.facility.id}', tag: '${step[1].data.tags[0]}' },
        results,
      ),
    ).toEqual({
      first: 's2',
      fid: 'f9',
      tag: 'a',
    });
  });

  it('keeps the raw value of a whole-string template (number, object, null)', () => {
    expect(
      resolveTemplates(
        { w: '${step[0].data[0].weight}', f: '${step[1].data.facility}', n: '${step[3].data}', all: '${step[0]}' },
        results,
      ),
    ).toEqual({
      w: 10,
      f: { id: 'f9', name: 'Hannover' },
      n: null,
      all: results[0],
    });
  });

  it('interpolates embedded templates as text: strings as-is, the rest as JSON', () => {
    expect(
      resolveTemplates(
        {
          msg: 'Facility ${step[1].data.facility.name} (${step[1].data.facility.id}) got ${step[0].data[0].weight}kg; ids=${step[0].data.*.id}',
        },
        results,
      ),
    ).toEqual({ msg: 'Facility Hannover (f9) got 10kg; ids=["s1","s2"]' });
  });

  it('resolves inside nested params and leaves other values alone', () => {
    const params = { filter: { ids: ['${step[0].data[0].id}', 'lit'], limit: 5, on: true, none: null } };
    expect(resolveTemplates(params, results)).toEqual({
      filter: { ids: ['s1', 'lit'], limit: 5, on: true, none: null },
    });
    expect(params.filter.ids[0]).toBe('${step[0].data[0].id}'); // input untouched
  });

  it('fails typed when the referenced step has no result', () => {
    const e = failure(() => resolveTemplates({ x: { y: '${step[7].data}' } }, results));
    expect(e.failure).toBe('missing_result');
    expect(e.code).toBe('PLAN-008');
    expect(e.details).toMatchObject({ step_index: 7, template: '${step[7].data}', param: 'x.y' });
  });

  it('fails typed when a path resolves to nothing', () => {
    const cases: [string, RegExp][] = [
      ['${step[0].nope}', /no field "nope"/],
      ['${step[0].data[5].id}', /no item \[5\]/],
      ['${step[1].data.*.id}', /not an array/],
      ['${step[0].data.*.missing}', /data\[0\]: no field "missing"/],
      ['${step[3].data.id}', /no field "id"/],
      ['${step[1].data.facility.constructor}', /no field "constructor"/],
    ];
    for (const [template, message] of cases) {
      const e = failure(() => resolveTemplates({ p: template }, results));
      expect(e.failure).toBe('unresolved_path');
      expect(e.message).toMatch(message);
    }
  });

  it('fails typed on a result that is undefined', () => {
    expect(failure(() => resolveTemplates({ p: '${step[0]}' }, { 0: undefined })).failure).toBe('unresolved_path');
  });
});
