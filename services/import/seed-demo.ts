/** The demo catalogue of Maison Aurèle, loaded through the same import as any catalogue file. */
import { demoCatalogue } from '../demo/demo-catalogue.ts';
import type { CommandService } from '../write/command-service.ts';
import { importCatalogue } from './import-catalogue.ts';
import type { ImportReport, OnProgress } from './import-progress.ts';

export function seedDemo(service: CommandService, onProgress?: OnProgress): Promise<ImportReport> {
  return importCatalogue(service, demoCatalogue(), onProgress, { actor: 'seed' });
}
