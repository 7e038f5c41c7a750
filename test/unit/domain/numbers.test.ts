import { numberValue } from '../../../src/domain/numbers';

describe('numberValue: numbers as a goal writes them', () => {
  it.each([
    ['700', 700],
    ['2,500', 2500],
    ['1,250,000', 1250000],
    ['1.5', 1.5],
    ['1k', 1000],
    ['2.5K', 2500],
    ['seven', 7],
    ['twenty-five', 25],
    ['two hundred', 200],
    ['two hundred and fifty', 250],
    ['three thousand four hundred', 3400],
  ])('%s is %d', (text, value) => {
    expect(numberValue(text)).toBe(value);
  });

  it('is undefined for what is no number', () => {
    expect(numberValue('several')).toBeUndefined();
    expect(numberValue('two apples')).toBeUndefined();
  });
});
