import { expect } from 'chai';
import { selectProjections } from '../../../shared/read-model/projections/index.ts';

/** The projections of the service, in the order the runner starts them (shared/read-model/projections/index.ts). */
const ALL = ['watches', 'collections', 'configurators', 'serials', 'transparency-log'];

describe('choosing projections by name', () => {
  it('gives every projection, in order, when none or an empty list is named', () => {
    expect(selectProjections().map((projection) => projection.name)).to.deep.equal(ALL);
    expect(selectProjections([]).map((projection) => projection.name)).to.deep.equal(ALL);
  });

  it('gives those named, in the runner order, and refuses naming every unknown one', () => {
    expect(selectProjections(['serials', 'watches']).map((projection) => projection.name)).to.deep.equal(['watches', 'serials']);
    expect(() => selectProjections(['orders', 'serials', 'stock'])).to.throw(`unknown projection orders, stock (known: ${ALL.join(', ')})`);
  });
});
