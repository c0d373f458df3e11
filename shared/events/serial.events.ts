/**
 * Events of the `serial-{SERIAL}` streams. The registry records a watch's authenticity and stolen status only:
 * no owner, no report details, no customer data of any kind.
 */
import Type from 'typebox';
import { CollectionCode, LocalizedText, SerialNumber, WatchReference } from './common.ts';

/**
 * A manufacture year as any event or file may hold it; the serial decider narrows it to a year begun
 * (services/write/domain/years.ts), the catalogue file takes the same shape (services/catalogue/catalogue-file.ts).
 */
export const MANUFACTURE_YEAR_BOUNDS = { minimum: 1800, maximum: 2200 } as const;
export const ManufactureYear = Type.Integer(MANUFACTURE_YEAR_BOUNDS);

/** `collection` and `model` are the watch's at registration time, so the fact stands on its own in the history. */
export const SerialRegistered = Type.Object(
  {
    serial: SerialNumber,
    reference: WatchReference,
    collection: CollectionCode,
    model: LocalizedText,
    manufacture_year: ManufactureYear,
  },
  { additionalProperties: false },
);
export type SerialRegistered = Type.Static<typeof SerialRegistered>;

const SerialReportedStolen = Type.Object({ serial: SerialNumber }, { additionalProperties: false });

const SerialRecovered = Type.Object({ serial: SerialNumber }, { additionalProperties: false });

export const serialEventSchemas = { SerialRegistered, SerialReportedStolen, SerialRecovered } as const;
