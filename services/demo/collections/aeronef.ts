/** Aéronef: the pilot collection. Large legible dials, GMT hands and soft-iron cages against magnetism. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { crownOptions, engravingOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'aeronef',
    name: L('Aéronef', 'Aéronef'),
    short_description: L('Pilot watches with large numerals, a second time zone and protection against magnetism.',
      'Des montres d’aviateur aux grands chiffres, avec second fuseau horaire et protection antimagnétique.'),
    description: L(
      'Aéronef recalls the cockpit instruments the Maison supplied to the Swiss Air Force in the 1950s. A soft-iron inner ' +
        'case shields the calibre AUR 330 from magnetic fields, and the oversized crown can be turned with gloves on.',
      'Aéronef rappelle les instruments de bord que la Maison fournissait aux Forces aériennes suisses dans les années 1950. ' +
        'Une cage en fer doux protège le calibre AUR 330 des champs magnétiques, et la grande couronne se manie avec des gants.'),
    type: 'pilot',
    diameter_mm: 43,
  },
  referencePrefix: 'AUR-PL',
  closing: L('Every Aéronef is checked against magnetic fields of 80,000 A/m before it is cased up.',
    'Chaque Aéronef est contrôlée sous un champ magnétique de 80 000 A/m avant son emboîtage.'),
  specifications: {
    en: { movement: 'Self-winding mechanical', calibre: 'AUR 330', power_reserve: '72 hours', frequency: '28,800 vph (4 Hz)',
      jewels: '27', water_resistance: '60 m (6 bar)', crystal: 'Sapphire, secured against drops in pressure',
      functions: 'Hours, minutes, seconds, date', magnetic_resistance: '80,000 A/m, soft-iron inner case' },
    fr: { movement: 'Mécanique à remontage automatique', calibre: 'AUR 330', power_reserve: '72 heures', frequency: '28 800 alt/h (4 Hz)',
      jewels: '27', water_resistance: '60 m (6 bar)', crystal: 'Saphir, sécurisé contre les chutes de pression',
      functions: 'Heures, minutes, secondes, date', magnetic_resistance: '80 000 A/m, cage en fer doux' },
  },
  features: list(
    ['Soft-iron inner case against magnetism', 'Oversized crown, usable with gloves'],
    ['Cage antimagnétique en fer doux', 'Grande couronne, utilisable avec des gants'],
  ),
  keywords: list(['pilot watch', 'aviation watch', 'antimagnetic'], ['montre d’aviateur', 'montre aviation', 'antimagnétique']),
  workshop: L('Pilot watch workshop, Le Brassus', 'Atelier des montres d’aviateur, Le Brassus'),
  thickness_mm: 12.1,
  firstYear: 2018,
};

const gmt = {
  features: list(['Second time zone with 24-hour hand'], ['Second fuseau horaire avec aiguille 24 heures']),
  specifications: {
    en: { calibre: 'AUR 335 GMT', functions: 'Hours, minutes, seconds, date, second time zone' },
    fr: { calibre: 'AUR 335 GMT', functions: 'Heures, minutes, secondes, date, second fuseau horaire' },
  },
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Aéronef 43 Type A', 'Aéronef 43 Type A'),
    short_description: L('Black dial, white numerals and a triangle at twelve: the classic observation watch.', 'Cadran noir, chiffres blancs et triangle à midi : la montre d’observation classique.'),
    story: L('The triangle at twelve let a navigator set his watch by feel in a dark cockpit.', 'Le triangle à midi permettait au navigateur de régler sa montre au toucher dans un cockpit obscur.'),
    material: 'steel', dial: 'matte-black', strap: 'aviator-leather', price_cents: eurosToCents(7800), stock_status: 'in_stock' },
  { number: 2, name: L('Aéronef 43 Type B', 'Aéronef 43 Type B'),
    short_description: L('An hour ring inside the minutes, as on navigators’ watches of the 1940s.', 'Une couronne des heures à l’intérieur des minutes, comme sur les montres de navigateur des années 1940.'),
    story: L('Its dial puts the minutes first, because a navigator counts minutes more often than hours.', 'Son cadran met les minutes en avant, car un navigateur compte plus souvent les minutes que les heures.'),
    material: 'steel', dial: 'matte-black', strap: 'calfskin-tan', price_cents: eurosToCents(7800), stock_status: 'low_stock' },
  { number: 3, name: L('Aéronef GMT', 'Aéronef GMT'),
    short_description: L('A second time zone on a 24-hour hand for long-haul flights.', 'Un second fuseau sur une aiguille 24 heures pour les vols long-courriers.'),
    story: L('The local hour hand jumps in one-hour steps, so a pilot changes zones without stopping the seconds.', 'L’aiguille des heures locales saute d’heure en heure : le pilote change de fuseau sans arrêter la trotteuse.'),
    material: 'steel', dial: 'slate-grey', strap: 'steel-bracelet', price_cents: eurosToCents(9600), stock_status: 'in_stock', ...gmt },
  { number: 4, name: L('Aéronef GMT Titanium', 'Aéronef GMT Titane'),
    short_description: L('The GMT in titanium with a blue dial, light for long flights.', 'La GMT en titane au cadran bleu, légère pour les longs vols.'),
    story: L('Titanium keeps the watch at body temperature, from the tarmac of Dubai to the snows of Sion.', 'Le titane garde la montre à la température du corps, du tarmac de Dubaï aux neiges de Sion.'),
    material: 'titanium', dial: 'midnight-blue', strap: 'titanium-bracelet', price_cents: eurosToCents(11200), stock_status: 'in_stock', ...gmt },
  { number: 5, name: L('Aéronef Bronze Khaki', 'Aéronef Bronze Kaki'),
    short_description: L('Bronze and khaki, a tribute to the bush pilots.', 'Bronze et kaki, un hommage aux pilotes de brousse.'),
    story: L('Made for pilots of small aircraft, it gains a brown patina with every hour in the air.', 'Faite pour les pilotes de petits avions, elle gagne une patine brune à chaque heure de vol.'),
    material: 'bronze', dial: 'forest-green', strap: 'nato-khaki', price_cents: eurosToCents(8600), stock_status: 'out_of_stock' },
  { number: 6, name: L('Aéronef 39 Cream', 'Aéronef 39 Crème'),
    short_description: L('A 39 mm pilot watch with aged cream numerals.', 'Une montre d’aviateur de 39 mm aux chiffres crème vieillis.'),
    story: L('Its proportions follow the Maison’s pilot watch of 1953, a size that suits most wrists.', 'Ses proportions reprennent la montre d’aviateur de la Maison de 1953, une taille qui sied à la plupart des poignets.'),
    material: 'steel', dial: 'cream-vintage', strap: 'aviator-leather', price_cents: eurosToCents(7200), stock_status: 'in_stock', diameter_mm: 39 },
  { number: 7, name: L('Aéronef Patrouille Édition', 'Aéronef Édition Patrouille'),
    short_description: L('A numbered series in black ceramic for the national aerobatic team.', 'Une série numérotée en céramique noire pour la patrouille acrobatique nationale.'),
    story: L('The Édition Patrouille carries the team’s crest on its case back and its colours on the seconds hand.', 'L’Édition Patrouille porte l’écusson de l’escadrille sur le fond et ses couleurs sur la trotteuse.'),
    material: 'ceramic', dial: 'matte-black', strap: 'rubber-black', price_cents: eurosToCents(12400), stock_status: 'low_stock',
    features: list(['Limited edition of 400 numbered pieces'], ['Édition limitée à 400 pièces numérotées']) },
  { number: 8, name: L('Aéronef Worldtimer', 'Aéronef Heure Universelle'),
    short_description: L('Twenty-four cities on the flange, all time zones at a glance.', 'Vingt-quatre villes sur le rehaut, tous les fuseaux d’un coup d’œil.'),
    story: L('A rotating 24-hour ring shows the time in every city at once, from Honolulu to Auckland.', 'Un disque 24 heures rotatif affiche l’heure de toutes les villes à la fois, d’Honolulu à Auckland.'),
    material: 'white-gold', dial: 'midnight-blue', strap: 'alligator-navy', price_cents: eurosToCents(38900), stock_status: 'made_to_order',
    features: list(['World time with 24 cities'], ['Heure universelle à 24 villes']),
    specifications: { en: { calibre: 'AUR 360 world time', functions: 'Hours, minutes, world time' }, fr: { calibre: 'AUR 360 heure universelle', functions: 'Heures, minutes, heure universelle' } } },
  { number: 9, name: L('Aéronef 43 Rose Gold', 'Aéronef 43 Or Rose'),
    short_description: L('A pilot watch in rose gold with a burgundy dial and brown alligator.', 'Une montre d’aviateur en or rose, cadran bordeaux et alligator brun.'),
    story: L('Gold pilot watches were once given to captains for their ten-thousandth flight hour.', 'On offrait autrefois une montre d’aviateur en or aux commandants pour leur dix-millième heure de vol.'),
    material: 'rose-gold', dial: 'burgundy', strap: 'alligator-brown', price_cents: eurosToCents(24800), stock_status: 'made_to_order' },
  { number: 10, name: L('Aéronef 43 Bracelet', 'Aéronef 43 Bracelet Acier'),
    short_description: L('The Type A on a steel bracelet, ready for any weather.', 'La Type A sur bracelet acier, prête pour tous les temps.'),
    story: L('Pilots in the tropics asked for metal: leather does not last long in hot, humid cockpits.', 'Les pilotes sous les tropiques réclamaient du métal : le cuir ne dure guère dans les cockpits chauds et humides.'),
    material: 'steel', dial: 'matte-black', strap: 'steel-bracelet', price_cents: eurosToCents(8700), stock_status: 'in_stock', customizable: false },
];

const aeronefConfigurator = configurator('aeronef', {
  case: [
    option('steel', 'Bead-blasted stainless steel', 'Acier inoxydable microbillé'),
    option('titanium', 'Grade 5 titanium', 'Titane grade 5', 1600),
    option('bronze', 'CuSn8 bronze', 'Bronze CuSn8', 800),
  ],
  dial: [
    option('type-a', 'Type A, black with triangle', 'Type A, noir avec triangle'),
    option('type-b', 'Type B, navigator hour ring', 'Type B, couronne des heures de navigateur'),
    option('cream-vintage', 'Cream with aged numerals', 'Crème aux chiffres vieillis', 300),
  ],
  crown: crownOptions(false),
  engraving: engravingOptions(),
  case_back: [
    option('solid-squadron', 'Solid case back', 'Fond plein'),
    option('squadron-crest', 'Case back engraved with a squadron crest', 'Fond gravé d’un écusson d’escadrille', 600),
  ],
  bracelet: [
    option('aviator-leather', 'Riveted aviator leather', 'Cuir aviateur riveté'),
    option('calfskin-tan', 'Tan calfskin', 'Veau havane'),
    option('nato-khaki', 'Khaki fabric', 'Tissu kaki'),
    option('steel-bracelet', 'Steel bracelet', 'Bracelet acier', 950),
  ],
}, [
  accessory('flight-bag', 'Leather flight pouch', 'Pochette de vol en cuir', 260, 2),
  accessory('extra-strap', 'Extra riveted leather strap', 'Bracelet cuir riveté supplémentaire', 279.5, 4),
  accessory('strap-tool', 'Strap-changing tool', 'Outil de changement de bracelet', 45, 3),
]);

export const aeronef: DemoCollection = assembleCollection(profile, variants, aeronefConfigurator);
