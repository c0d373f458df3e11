/**
 * The demo serial registry: a few fixed serials that docs and tests cite, and about two thousand more drawn from a
 * seeded generator, so every start of the demo registers exactly the same serials.
 */
import type { SerialEntry } from '../catalogue/catalogue-file.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';

/** Serials to cite in docs and tests. `notFound` is never registered. */
export const DEMO_SERIALS = {
  authentic: 'AUR-2021-000042',
  stolen: 'AUR-2019-000777',
  notFound: 'AUR-1999-000000',
} as const;

const FIXED_SERIALS: SerialEntry[] = [
  { serial: DEMO_SERIALS.authentic, reference: 'AUR-SP-001', manufacture_year: 2021 },
  { serial: DEMO_SERIALS.stolen, reference: 'AUR-DV-001', manufacture_year: 2019, stolen: true },
];

/** The last year a demo serial is made; fixed rather than read from a clock so the demo never changes. */
const LAST_SERIAL_YEAR = 2025;
const GENERATED_COUNT = 2_100;
const STOLEN_COUNT = 6;
const SEED = 1891;
/** Generated serial numbers start above every fixed one, so the two can never collide. */
const FIRST_GENERATED_NUMBER = 100_000;

interface SerialSource {
  reference: string;
  /** First year serials of this watch's collection were made. */
  firstYear: number;
}

function serialOf(year: number, number: number): string {
  return `AUR-${year}-${String(number).padStart(6, '0')}`;
}

/** The fixed serials, then `GENERATED_COUNT` serials spread over the given watches and their years. */
export function demoSerials(sources: SerialSource[]): SerialEntry[] {
  if (sources.length === 0) return [...FIXED_SERIALS];
  const random = seededRandom(SEED);
  const pick = (size: number): number => Math.floor(random() * size);
  const stolenAt = new Set<number>();
  while (stolenAt.size < STOLEN_COUNT) stolenAt.add(pick(GENERATED_COUNT));

  const generated: SerialEntry[] = [];
  let number = FIRST_GENERATED_NUMBER;
  for (let index = 0; index < GENERATED_COUNT; index += 1) {
    const source = sources[pick(sources.length)] as SerialSource;
    const year = source.firstYear + pick(LAST_SERIAL_YEAR - source.firstYear + 1);
    // Steps of 1 to 9 keep numbers unique while leaving gaps, as a real registry has for unsold or scrapped cases.
    number += 1 + pick(9);
    generated.push({
      serial: serialOf(year, number),
      reference: source.reference,
      manufacture_year: year,
      ...(stolenAt.has(index) ? { stolen: true } : {}),
    });
  }
  return [...FIXED_SERIALS, ...generated];
}
