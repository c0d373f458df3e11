/** Commands of the `serial-{SERIAL}` aggregate. Serial numbers and references arrive upper-cased. */
type RegisterSerial = {
  type: 'RegisterSerial'; serial: string; reference: string; manufacture_year: number;
  /** The latest year begun anywhere, by the service's clock when the command is sent: no watch is made later. */
  current_year: number;
};
type ReportSerialStolen = { type: 'ReportSerialStolen'; serial: string };
type RecoverSerial = { type: 'RecoverSerial'; serial: string };

export type SerialCommand = RegisterSerial | ReportSerialStolen | RecoverSerial;
