/** Tempo: the chronograph collection. Column-wheel chronographs; the configurator offers tachymeter scales and pushers. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { caseBackOptions, crownOptions, engravingOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'tempo',
    name: L('Tempo Chronograph', 'Tempo Chronographe'),
    short_description: L('Column-wheel chronographs for timing laps, races and soft-boiled eggs.',
      'Des chronographes à roue à colonnes pour chronométrer les tours de piste, les courses et les œufs à la coque.'),
    description: L(
      'Tempo is built around the calibre AUR 520, a self-winding chronograph with a column wheel and a vertical clutch, ' +
        'so the seconds hand starts without a jump. Each watch can be fitted with a tachymeter, pulsometer or telemeter scale.',
      'Tempo est construite autour du calibre AUR 520, un chronographe automatique à roue à colonnes et embrayage vertical : ' +
        'la trotteuse démarre sans à-coup. Chaque montre peut recevoir une échelle tachymétrique, pulsométrique ou télémétrique.'),
    type: 'chronograph',
    diameter_mm: 40,
  },
  referencePrefix: 'AUR-CH',
  closing: L('The Tempo chronograph is adjusted in five positions and started and stopped a thousand times before delivery.',
    'Le chronographe Tempo est réglé en cinq positions, puis démarré et arrêté mille fois avant livraison.'),
  specifications: {
    en: { movement: 'Self-winding mechanical chronograph', calibre: 'AUR 520', power_reserve: '60 hours', frequency: '28,800 vph (4 Hz)',
      jewels: '37', water_resistance: '50 m (5 bar)', crystal: 'Box sapphire, anti-reflective',
      functions: 'Hours, minutes, small seconds, chronograph with 30-minute and 12-hour counters' },
    fr: { movement: 'Chronographe mécanique à remontage automatique', calibre: 'AUR 520', power_reserve: '60 heures', frequency: '28 800 alt/h (4 Hz)',
      jewels: '37', water_resistance: '50 m (5 bar)', crystal: 'Saphir « box », traité antireflet',
      functions: 'Heures, minutes, petite seconde, chronographe avec compteurs 30 minutes et 12 heures' },
  },
  features: list(
    ['Column-wheel chronograph with vertical clutch', 'Counters for 30 minutes and 12 hours'],
    ['Chronographe à roue à colonnes et embrayage vertical', 'Compteurs 30 minutes et 12 heures'],
  ),
  keywords: list(['chronograph', 'column wheel', 'tachymeter'], ['chronographe', 'roue à colonnes', 'tachymètre']),
  workshop: L('Chronograph workshop, Le Sentier', 'Atelier des chronographes, Le Sentier'),
  thickness_mm: 13.4,
  firstYear: 2017,
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Tempo Panda', 'Tempo Panda'),
    short_description: L('White dial, black counters: the chronograph face everyone recognises.', 'Cadran blanc, compteurs noirs : le visage de chronographe que tout le monde reconnaît.'),
    story: L('The contrast of the counters was meant for reading a time at a glance from the pit wall.', 'Le contraste des compteurs devait permettre de lire un temps d’un coup d’œil depuis le muret des stands.'),
    material: 'steel', dial: 'panda', strap: 'steel-bracelet', price_cents: eurosToCents(12600), stock_status: 'low_stock' },
  { number: 2, name: L('Tempo Reverse Panda', 'Tempo Panda Inversé'),
    short_description: L('Black dial and white counters for the night stints.', 'Cadran noir et compteurs blancs pour les relais de nuit.'),
    story: L('Endurance drivers asked for a dark dial that would not dazzle them at night.', 'Les pilotes d’endurance voulaient un cadran sombre qui ne les éblouisse pas la nuit.'),
    material: 'steel', dial: 'reverse-panda', strap: 'calfskin-tan', price_cents: eurosToCents(12600), stock_status: 'in_stock' },
  { number: 3, name: L('Tempo Tachymeter Blue', 'Tempo Tachymètre Bleu'),
    short_description: L('A tachymeter bezel and a midnight-blue dial.', 'Une lunette tachymétrique et un cadran bleu nuit.'),
    story: L('Time a kilometre and the tachymeter reads your speed, up to 400 km/h.', 'Chronométrez un kilomètre et le tachymètre indique votre vitesse, jusqu’à 400 km/h.'),
    material: 'steel', dial: 'midnight-blue', strap: 'alligator-navy', price_cents: eurosToCents(13200), stock_status: 'in_stock' },
  { number: 4, name: L('Tempo Rose Gold', 'Tempo Or Rose'),
    short_description: L('A rose gold chronograph with a salmon dial and blued hands.', 'Un chronographe en or rose au cadran saumon et aux aiguilles bleuies.'),
    story: L('The hands are blued over a flame, the way our chronographs were finished in the 1930s.', 'Les aiguilles sont bleuies à la flamme, comme on finissait nos chronographes dans les années 1930.'),
    material: 'rose-gold', dial: 'salmon', strap: 'alligator-brown', price_cents: eurosToCents(34800), stock_status: 'made_to_order' },
  { number: 5, name: L('Tempo Pulsometer', 'Tempo Pulsomètre'),
    short_description: L('A pulsometer scale graduated for 30 beats, for doctors and runners.', 'Une échelle pulsométrique graduée sur 30 pulsations, pour les médecins et les coureurs.'),
    story: L('Start the chronograph, count thirty beats, stop: the scale gives the heart rate per minute.', 'Démarrez le chronographe, comptez trente pulsations, arrêtez : l’échelle donne le pouls par minute.'),
    material: 'white-gold', dial: 'white-enamel', strap: 'alligator-black', price_cents: eurosToCents(36900), stock_status: 'low_stock' },
  { number: 6, name: L('Tempo Racing Titanium', 'Tempo Racing Titane'),
    short_description: L('A light titanium chronograph with a sector dial.', 'Un chronographe léger en titane au cadran sectoriel.'),
    story: L('Born for the hill climbs of the Jura, it weighs less than a set of car keys.', 'Née pour les courses de côte du Jura, elle pèse moins qu’un trousseau de clés de voiture.'),
    material: 'titanium', dial: 'sector', strap: 'rubber-black', price_cents: eurosToCents(14800), stock_status: 'in_stock' },
  { number: 7, name: L('Tempo Flyback', 'Tempo Retour en Vol'),
    short_description: L('A flyback chronograph that restarts with a single push.', 'Un chronographe retour en vol qui redémarre d’une seule pression.'),
    story: L('Press the lower pusher while it runs and the chronograph resets and starts again in one move.', 'Appuyez sur le poussoir inférieur en marche : le chronographe se remet à zéro et repart d’un seul geste.'),
    material: 'steel', dial: 'slate-grey', strap: 'steel-bracelet', price_cents: eurosToCents(15900), stock_status: 'in_stock',
    features: list(['Flyback function'], ['Fonction retour en vol']),
    specifications: { en: { calibre: 'AUR 522 flyback' }, fr: { calibre: 'AUR 522 retour en vol' } } },
  { number: 8, name: L('Tempo Rattrapante', 'Tempo Rattrapante'),
    short_description: L('A split-seconds chronograph to time two runners at once.', 'Un chronographe à rattrapante pour chronométrer deux coureurs à la fois.'),
    story: L('A second seconds hand can be stopped and released again, catching up with the first: a complication assembled by one watchmaker.',
      'Une seconde trotteuse s’arrête puis rattrape la première : une complication assemblée par un seul horloger.'),
    material: 'platinum', dial: 'guilloche', strap: 'alligator-black', price_cents: eurosToCents(89000), stock_status: 'made_to_order', diameter_mm: 42,
    features: list(['Split-seconds mechanism'], ['Mécanisme à rattrapante']),
    specifications: { en: { calibre: 'AUR 540 rattrapante', jewels: '44' }, fr: { calibre: 'AUR 540 rattrapante', jewels: '44' } } },
  { number: 9, name: L('Tempo Édition Grand Prix', 'Tempo Édition Grand Prix'),
    short_description: L('A numbered series in black ceramic and racing red.', 'Une série numérotée en céramique noire et rouge course.'),
    story: L('The Édition Grand Prix marks fifty years since the Maison timed its first motor race.', 'L’Édition Grand Prix marque les cinquante ans de la première course automobile chronométrée par la Maison.'),
    material: 'ceramic', dial: 'reverse-panda', strap: 'rubber-black', price_cents: eurosToCents(17600), stock_status: 'out_of_stock',
    features: list(['Limited edition of 250 numbered pieces'], ['Édition limitée à 250 pièces numérotées']) },
  { number: 10, name: L('Tempo Yellow Gold', 'Tempo Or Jaune'),
    short_description: L('A yellow gold chronograph with a champagne dial and gold bracelet.', 'Un chronographe en or jaune au cadran champagne sur bracelet or.'),
    story: L('Gold on gold, it is the most sumptuous Tempo, and the heaviest at 210 grams.', 'Or sur or, c’est la Tempo la plus somptueuse, et la plus lourde avec 210 grammes.'),
    material: 'yellow-gold', dial: 'champagne', strap: 'gold-bracelet', price_cents: eurosToCents(62500), stock_status: 'made_to_order', customizable: false },
];

const tempoConfigurator = configurator('tempo', {
  case: [
    option('steel', 'Stainless steel', 'Acier inoxydable'),
    option('titanium', 'Grade 5 titanium', 'Titane grade 5', 1900),
    option('rose-gold', '18k rose gold', 'Or rose 18 carats', 19800),
    option('white-gold', '18k white gold', 'Or gris 18 carats', 21400),
  ],
  dial: [
    option('panda', 'White with black counters', 'Blanc, compteurs noirs'),
    option('reverse-panda', 'Black with white counters', 'Noir, compteurs blancs'),
    option('midnight-blue', 'Midnight blue', 'Bleu nuit', 400),
    option('salmon', 'Salmon', 'Saumon', 900),
  ],
  crown: crownOptions(false),
  case_back: caseBackOptions(),
  engraving: engravingOptions(),
  bracelet: [
    option('calfskin-tan', 'Perforated tan calfskin', 'Veau havane perforé'),
    option('alligator-black', 'Black alligator', 'Alligator noir', 350),
    option('steel-bracelet', 'Steel bracelet', 'Bracelet acier', 1200),
    option('rubber-black', 'Black rubber strap', 'Bracelet caoutchouc noir'),
  ],
  tachymeter: [
    option('none', 'No scale', 'Sans échelle'),
    option('tachymeter', 'Tachymeter scale on the bezel', 'Échelle tachymétrique sur la lunette', 650),
    option('pulsometer', 'Pulsometer scale on the flange', 'Échelle pulsométrique sur le rehaut', 800),
    option('telemeter', 'Telemeter scale on the flange', 'Échelle télémétrique sur le rehaut', 800),
  ],
  pushers: [
    option('round', 'Round pushers', 'Poussoirs ronds'),
    option('pump', 'Pump pushers', 'Poussoirs pompe', 300),
    option('rectangular', 'Rectangular pushers', 'Poussoirs rectangulaires', 450),
    option('screw-down', 'Screw-down pushers, 100 m', 'Poussoirs vissés, 100 m', 900),
  ],
}, [
  accessory('travel-case', 'Leather travel case for two watches', 'Étui de voyage en cuir pour deux montres', 520, 2),
  accessory('extra-strap', 'Extra perforated leather strap', 'Bracelet cuir perforé supplémentaire', 329.5, 4),
  accessory('winder', 'Watch winder', 'Remontoir de montre', 1450, 1),
  accessory('timing-logbook', 'Bound timing logbook', 'Carnet de chronométrage relié', 89, 5),
]);

export const tempo: DemoCollection = assembleCollection(profile, variants, tempoConfigurator);
