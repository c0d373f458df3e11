/**
 * Configurator option lists several collections share (case back, engraving, crown, rehaut); each collection adds
 * its own for the case, dial, bracelet and whatever its type calls for. The first option of a list is the default.
 */
import { option, type OptionEntry } from './configurator-builder.ts';

export function caseBackOptions(): OptionEntry[] {
  return [
    option('sapphire', 'Sapphire case back', 'Fond saphir'),
    option('solid-engraved', 'Solid case back, engraved with the manufacture crest', 'Fond plein gravé aux armes de la Maison', 450),
    option('hunter', 'Hinged hunter case back', 'Fond à charnière façon savonnette', 2400),
  ];
}

export function engravingOptions(): OptionEntry[] {
  return [
    option('none', 'No engraving', 'Sans gravure'),
    option('initials', 'Initials on the case back', 'Initiales sur le fond', 250),
    option('message', 'Personal message, up to 40 characters', 'Message personnel, jusqu’à 40 caractères', 480),
    option('hand-engraved', 'Hand-engraved motif by our engraver', 'Motif gravé à la main par notre graveur', 3200),
  ];
}

export function crownOptions(gold: boolean): OptionEntry[] {
  return [
    option('signed', 'Signed crown', 'Couronne signée'),
    option('cabochon-sapphire', 'Crown set with a sapphire cabochon', 'Couronne sertie d’un cabochon saphir', 650),
    ...(gold ? [] : [option('gold', 'Crown in 18k rose gold', 'Couronne en or rose 18 carats', 1100)]),
  ];
}

export function rehautOptions(): OptionEntry[] {
  return [
    option('plain', 'Plain rehaut', 'Rehaut uni'),
    option('railway', 'Railway minute track on the rehaut', 'Minuterie chemin de fer sur le rehaut', 300),
    option('engraved-name', 'Rehaut engraved with the owner’s name', 'Rehaut gravé au nom du propriétaire', 900),
  ];
}
