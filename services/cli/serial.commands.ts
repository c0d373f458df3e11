/** `watchcat serial register | report-stolen | recover`. */
import type { CliModule } from './cli-module.ts';
import { identifier, year } from './arguments.ts';

export const serialCommands: CliModule = (program, context) => {
  const serial = program.command('serial').description('the serial registry: register serials, report thefts and recoveries');

  serial.command('register')
    .description('register a serial number for a published watch')
    .argument('<serial>', 'serial number (upper-cased)', identifier)
    .requiredOption('--reference <ref>', 'reference of the watch (upper-cased)', identifier)
    .requiredOption('--year <yyyy>', 'manufacture year', year)
    .action(async (number: string, options: { reference: string; year: number }) => {
      const result = await (await context.service()).registerSerial(number, options.reference, options.year);
      context.out(`registered serial ${number} for ${options.reference} (${options.year}) at position ${result.position}`);
    });

  serial.command('report-stolen')
    .description('report a registered serial stolen')
    .argument('<serial>', 'serial number (upper-cased)', identifier)
    .action(async (number: string) => {
      const result = await (await context.service()).reportSerialStolen(number);
      context.out(`serial ${number} reported stolen at position ${result.position}`);
    });

  serial.command('recover')
    .description('record that a stolen serial was recovered')
    .argument('<serial>', 'serial number (upper-cased)', identifier)
    .action(async (number: string) => {
      const result = await (await context.service()).recoverSerial(number);
      context.out(`serial ${number} recovered at position ${result.position}`);
    });
};
