/** Astrale: the complication collection. Moon phases, perpetual calendars, tourbillons and a minute repeater. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { caseBackOptions, engravingOptions, rehautOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'astrale',
    name: L('Astrale', 'Astrale'),
    short_description: L('The grand complications of the Maison, each assembled by a single watchmaker.',
      'Les grandes complications de la Maison, chacune assemblée par un seul horloger.'),
    description: L(
      'Astrale follows the sky and the calendar: moon phases accurate for 122 years, perpetual calendars that know leap years, ' +
        'tourbillons and a minute repeater. From the first part to the last test, one watchmaker builds each watch and signs it.',
      'Astrale suit le ciel et le calendrier : phases de lune exactes pendant 122 ans, quantièmes perpétuels qui connaissent les ' +
        'années bissextiles, tourbillons et répétition minutes. De la première pièce au dernier contrôle, un seul horloger construit chaque montre et la signe.'),
    type: 'complication',
    diameter_mm: 41,
  },
  referencePrefix: 'AUR-CP',
  closing: L('Its watchmaker’s initials are engraved inside the case back, and the Maison services it for life.',
    'Les initiales de son horloger sont gravées à l’intérieur du fond, et la Maison l’entretient à vie.'),
  specifications: {
    en: { movement: 'Self-winding mechanical with micro-rotor', calibre: 'AUR 700', power_reserve: '60 hours', frequency: '21,600 vph (3 Hz)',
      jewels: '39', water_resistance: '30 m (3 bar)', crystal: 'Sapphire, anti-reflective on both sides', functions: 'Hours, minutes, moon phase' },
    fr: { movement: 'Mécanique à remontage automatique par micro-rotor', calibre: 'AUR 700', power_reserve: '60 heures', frequency: '21 600 alt/h (3 Hz)',
      jewels: '39', water_resistance: '30 m (3 bar)', crystal: 'Saphir, traité antireflet double face', functions: 'Heures, minutes, phases de lune' },
  },
  features: list(
    ['Assembled and signed by a single watchmaker', 'Micro-rotor in 22k gold'],
    ['Assemblée et signée par un seul horloger', 'Micro-rotor en or 22 carats'],
  ),
  keywords: list(['grand complication', 'haute horlogerie', 'moon phase'], ['grande complication', 'haute horlogerie', 'phases de lune']),
  workshop: L('Grand complications workshop, Le Sentier', 'Atelier des grandes complications, Le Sentier'),
  thickness_mm: 10.9,
  firstYear: 2012,
};

const spec = (calibre: string, en: string, fr: string, jewels = '39') => ({
  en: { calibre, functions: en, jewels }, fr: { calibre, functions: fr, jewels },
});

const variants: WatchVariant[] = [
  { number: 1, name: L('Astrale Moon Phase', 'Astrale Phases de Lune'),
    short_description: L('A moon that needs correcting only once every 122 years.', 'Une lune qui ne demande à être corrigée qu’une fois tous les 122 ans.'),
    story: L('Its 135-tooth wheel follows the lunar month to within 57 seconds.', 'Sa roue de 135 dents suit le mois lunaire à 57 secondes près.'),
    material: 'rose-gold', dial: 'aventurine', strap: 'alligator-brown', price_cents: eurosToCents(32500), stock_status: 'in_stock' },
  { number: 2, name: L('Astrale Moon Phase Steel', 'Astrale Phases de Lune Acier'),
    short_description: L('The astronomical moon in a steel case, the most accessible Astrale.', 'La lune astronomique dans un boîtier en acier, l’Astrale la plus accessible.'),
    story: L('Its gold moon crosses a midnight-blue sky, polished by hand to catch the light.', 'Sa lune en or traverse un ciel bleu nuit, polie à la main pour accrocher la lumière.'),
    material: 'steel', dial: 'midnight-blue', strap: 'alligator-navy', price_cents: eurosToCents(18900), stock_status: 'low_stock' },
  { number: 3, name: L('Astrale Perpetual Calendar', 'Astrale Quantième Perpétuel'),
    short_description: L('Date, day, month and leap year, right until 2100.', 'Date, jour, mois et année bissextile, justes jusqu’en 2100.'),
    story: L('A mechanical memory of 48 months knows that February has 28 days, or 29 every fourth year.', 'Une mémoire mécanique de 48 mois sait que février compte 28 jours, ou 29 tous les quatre ans.'),
    material: 'white-gold', dial: 'silver-opaline', strap: 'alligator-black', price_cents: eurosToCents(78500), stock_status: 'made_to_order',
    specifications: spec('AUR 750', 'Hours, minutes, perpetual calendar, moon phase, leap year', 'Heures, minutes, quantième perpétuel, phases de lune, année bissextile', '44') },
  { number: 4, name: L('Astrale Perpetual Calendar Platinum', 'Astrale Quantième Perpétuel Platine'),
    short_description: L('The perpetual calendar in platinum with a salmon dial.', 'Le quantième perpétuel en platine au cadran saumon.'),
    story: L('Only twelve are made each year, each adjusted for three weeks before delivery.', 'Douze seulement sont produites chaque année, chacune réglée trois semaines avant livraison.'),
    material: 'platinum', dial: 'salmon', strap: 'alligator-brown', price_cents: eurosToCents(96000), stock_status: 'made_to_order',
    specifications: spec('AUR 750', 'Hours, minutes, perpetual calendar, moon phase, leap year', 'Heures, minutes, quantième perpétuel, phases de lune, année bissextile', '44') },
  { number: 5, name: L('Astrale Tourbillon', 'Astrale Tourbillon'),
    short_description: L('A one-minute tourbillon at six o’clock, seen through the dial.', 'Un tourbillon d’une minute à six heures, visible à travers le cadran.'),
    story: L('The titanium cage weighs 0.29 grams and turns once a minute to average out the effects of gravity.', 'La cage en titane pèse 0,29 gramme et tourne une fois par minute pour compenser les effets de la gravité.'),
    material: 'rose-gold', dial: 'skeleton', strap: 'alligator-black', price_cents: eurosToCents(118000), stock_status: 'made_to_order',
    specifications: spec('AUR 780', 'Hours, minutes, one-minute tourbillon', 'Heures, minutes, tourbillon une minute', '25') },
  { number: 6, name: L('Astrale Tourbillon Skeleton', 'Astrale Tourbillon Squelette'),
    short_description: L('Bridges openworked by hand until the movement seems to float.', 'Des ponts ajourés à la main jusqu’à ce que le mouvement semble flotter.'),
    story: L('Openworking takes three hundred hours: each bridge is sawn, filed and bevelled by hand.', 'L’ajourage demande trois cents heures : chaque pont est scié, limé et anglé à la main.'),
    material: 'platinum', dial: 'skeleton', strap: 'alligator-navy', price_cents: eurosToCents(154000), stock_status: 'made_to_order',
    specifications: spec('AUR 781 SQ', 'Hours, minutes, one-minute tourbillon', 'Heures, minutes, tourbillon une minute', '25') },
  { number: 7, name: L('Astrale Minute Repeater', 'Astrale Répétition Minutes'),
    short_description: L('Hours, quarters and minutes chimed on two gongs, on demand.', 'Les heures, les quarts et les minutes sonnés sur deux timbres, à la demande.'),
    story: L('Each repeater is tuned by ear in a silent room by the same watchmaker who assembled it.', 'Chaque répétition est accordée à l’oreille, dans une pièce silencieuse, par l’horloger qui l’a assemblée.'),
    material: 'rose-gold', dial: 'white-enamel', strap: 'alligator-brown', price_cents: eurosToCents(178000), stock_status: 'made_to_order',
    specifications: spec('AUR 790', 'Hours, minutes, minute repeater on two gongs', 'Heures, minutes, répétition minutes sur deux timbres', '42') },
  { number: 8, name: L('Astrale Annual Calendar', 'Astrale Quantième Annuel'),
    short_description: L('Knows 30- and 31-day months; one correction a year, on the first of March.', 'Connaît les mois de 30 et 31 jours ; une correction par an, le premier mars.'),
    story: L('A calendar for people who want a complication they can wear every day.', 'Un calendrier pour qui veut une complication à porter tous les jours.'),
    material: 'steel', dial: 'slate-grey', strap: 'calfskin-tan', price_cents: eurosToCents(24500), stock_status: 'in_stock',
    specifications: spec('AUR 720', 'Hours, minutes, annual calendar, moon phase', 'Heures, minutes, quantième annuel, phases de lune', '40') },
  { number: 9, name: L('Astrale Sky Chart Édition', 'Astrale Édition Carte du Ciel'),
    short_description: L('The sky above Le Sentier, turning once per sidereal day.', 'Le ciel du Sentier, qui tourne une fois par jour sidéral.'),
    story: L('This Édition shows the stars as they rise over the Vallée de Joux, with the Milky Way painted by hand.',
      'Cette Édition montre les étoiles telles qu’elles se lèvent au-dessus de la Vallée de Joux, avec la Voie lactée peinte à la main.'),
    material: 'white-gold', dial: 'aventurine', strap: 'alligator-navy', price_cents: eurosToCents(112000), stock_status: 'low_stock',
    features: list(['Limited edition of 25 numbered pieces'], ['Édition limitée à 25 pièces numérotées']),
    specifications: spec('AUR 760', 'Hours, minutes, sky chart, sidereal time', 'Heures, minutes, carte du ciel, temps sidéral', '41') },
  { number: 10, name: L('Astrale Power Reserve', 'Astrale Réserve de Marche'),
    short_description: L('A moon phase and a seven-day power reserve indicator.', 'Des phases de lune et un indicateur de réserve de marche de sept jours.'),
    story: L('Two barrels in series give a full week of autonomy, shown on a fan-shaped indicator.', 'Deux barillets en série offrent une semaine d’autonomie, affichée sur un indicateur en éventail.'),
    material: 'yellow-gold', dial: 'champagne', strap: 'alligator-brown', price_cents: eurosToCents(41800), stock_status: 'out_of_stock', customizable: false,
    specifications: { en: { calibre: 'AUR 710', power_reserve: '7 days', functions: 'Hours, minutes, moon phase, power reserve' },
      fr: { calibre: 'AUR 710', power_reserve: '7 jours', functions: 'Heures, minutes, phases de lune, réserve de marche' } } },
];

const astraleConfigurator = configurator('astrale', {
  case: [
    option('rose-gold', '18k rose gold', 'Or rose 18 carats'),
    option('white-gold', '18k white gold', 'Or gris 18 carats', 1800),
    option('platinum', 'Platinum 950', 'Platine 950', 14500),
  ],
  dial: [
    option('silver-opaline', 'Silvered opaline', 'Argenté opalin'),
    option('aventurine', 'Blue aventurine', 'Aventurine bleue', 4200),
    option('enamel', 'Grand feu enamel', 'Émail grand feu', 6800),
    option('meteorite', 'Gibeon meteorite', 'Météorite de Gibeon', 7500),
  ],
  lugs: [
    option('straight', 'Straight lugs', 'Cornes droites'),
    option('teardrop', 'Teardrop lugs', 'Cornes en goutte', 1500),
    option('stepped', 'Stepped lugs', 'Cornes à gradins', 2200),
  ],
  movement: [
    option('gold-rotor', 'Côtes de Genève, 22k gold micro-rotor', 'Côtes de Genève, micro-rotor en or 22 carats'),
    option('hand-engraved', 'Hand-engraved bridges', 'Ponts gravés à la main', 9500),
    option('black-polish', 'Black-polished steel parts', 'Aciers polis noir', 5400),
  ],
  case_back: caseBackOptions(),
  engraving: engravingOptions(),
  rehaut: rehautOptions(),
  bracelet: [
    option('alligator-brown', 'Brown alligator', 'Alligator brun'),
    option('alligator-black', 'Black alligator', 'Alligator noir'),
    option('alligator-navy', 'Navy alligator', 'Alligator bleu marine'),
  ],
}, [
  accessory('presentation-box', 'Walnut presentation box', 'Coffret de présentation en noyer', 1800, 1),
  accessory('winder', 'Watch winder with calendar setting', 'Remontoir avec réglage pour quantième', 2400, 2),
  accessory('extra-strap', 'Extra alligator strap', 'Bracelet alligator supplémentaire', 349.5, 4),
]);

export const astrale: DemoCollection = assembleCollection(profile, variants, astraleConfigurator);
