/** Lumière: the dress collection. Thin hand-wound watches with enamel, guilloché and opaline dials. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { caseBackOptions, crownOptions, engravingOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'lumiere',
    name: L('Lumière', 'Lumière'),
    short_description: L('Thin, quiet dress watches for the evening and the boardroom alike.',
      'Des montres habillées fines et discrètes, du conseil d’administration au dîner.'),
    description: L(
      'Lumière gathers the thinnest watches of the Maison around the hand-wound calibre AUR 120, barely 2.9 mm thick. ' +
        'Enamel, guilloché and opaline dials are made in our own workshop, and every case slips under a shirt cuff.',
      'Lumière réunit les montres les plus fines de la Maison autour du calibre à remontage manuel AUR 120, épais de ' +
        '2,9 mm à peine. Les cadrans en émail, guillochés ou opalins sortent de notre atelier, et chaque boîtier se glisse sous une manchette.'),
    type: 'dress',
    diameter_mm: 39,
  },
  referencePrefix: 'AUR-DR',
  closing: L('Like every Lumière, it is finished by hand in Le Sentier and wound by hand each morning.',
    'Comme chaque Lumière, elle est terminée à la main au Sentier et se remonte à la main chaque matin.'),
  specifications: {
    en: { movement: 'Hand-wound mechanical', calibre: 'AUR 120', power_reserve: '65 hours', frequency: '21,600 vph (3 Hz)',
      jewels: '21', water_resistance: '30 m (3 bar)', crystal: 'Sapphire, anti-reflective on both sides', functions: 'Hours, minutes, small seconds' },
    fr: { movement: 'Mécanique à remontage manuel', calibre: 'AUR 120', power_reserve: '65 heures', frequency: '21 600 alt/h (3 Hz)',
      jewels: '21', water_resistance: '30 m (3 bar)', crystal: 'Saphir, traité antireflet double face', functions: 'Heures, minutes, petite seconde' },
  },
  features: list(
    ['Ultra-thin hand-wound calibre AUR 120', 'Côtes de Genève and hand-bevelled bridges'],
    ['Calibre extra-plat AUR 120 à remontage manuel', 'Côtes de Genève et ponts anglés à la main'],
  ),
  keywords: list(['dress watch', 'ultra-thin watch', 'hand-wound'], ['montre habillée', 'montre extra-plate', 'remontage manuel']),
  workshop: L('Dress watch workshop, Le Sentier', 'Atelier des montres habillées, Le Sentier'),
  thickness_mm: 7.8,
  firstYear: 2014,
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Lumière Small Seconds', 'Lumière Petite Seconde'),
    short_description: L('The essential Lumière: small seconds at six o’clock on a silvered dial.', 'La Lumière essentielle : petite seconde à six heures sur cadran argenté.'),
    story: L('The first Lumière drawn in 2014 still sets the proportions of the whole family.', 'La première Lumière, dessinée en 2014, fixe encore les proportions de toute la famille.'),
    material: 'steel', dial: 'silver-opaline', strap: 'alligator-black', price_cents: eurosToCents(9800), stock_status: 'in_stock' },
  { number: 2, name: L('Lumière Small Seconds Rose Gold', 'Lumière Petite Seconde Or Rose'),
    short_description: L('Warm rose gold around a salmon dial, a nod to the 1940s.', 'L’or rose chaleureux autour d’un cadran saumon, clin d’œil aux années 1940.'),
    story: L('Salmon dials were the height of elegance in the 1940s; this one is grained by hand before it is tinted.', 'Les cadrans saumon faisaient la fierté des années 1940 ; celui-ci est grené à la main avant d’être teinté.'),
    material: 'rose-gold', dial: 'salmon', strap: 'alligator-brown', price_cents: eurosToCents(21500), stock_status: 'low_stock' },
  { number: 3, name: L('Lumière Grand Feu Enamel', 'Lumière Émail Grand Feu'),
    short_description: L('A white enamel dial fired at 800 °C, as deep as porcelain.', 'Un cadran en émail blanc cuit à 800 °C, profond comme une porcelaine.'),
    story: L('Our enameller fires each dial up to eight times, and discards one in three.', 'Notre émailleur cuit chaque cadran jusqu’à huit fois et en écarte un sur trois.'),
    material: 'white-gold', dial: 'white-enamel', strap: 'alligator-navy', price_cents: eurosToCents(27800), stock_status: 'made_to_order' },
  { number: 4, name: L('Lumière Clous de Paris', 'Lumière Clous de Paris'),
    short_description: L('A hand-guilloché dial whose pattern catches every ray of light.', 'Un cadran guilloché main dont le motif accroche chaque rayon de lumière.'),
    story: L('The clous de Paris pattern is cut one line at a time on a rose engine from 1911.', 'Le motif clous de Paris est tracé ligne après ligne sur un tour à guillocher de 1911.'),
    material: 'yellow-gold', dial: 'guilloche', strap: 'alligator-brown', price_cents: eurosToCents(24900), stock_status: 'in_stock' },
  { number: 5, name: L('Lumière Midnight', 'Lumière Minuit'),
    short_description: L('Midnight blue and steel: the Lumière for every day.', 'Bleu nuit et acier : la Lumière de tous les jours.'),
    story: L('A sunburst finish makes the blue turn almost black in the dark and bright in the sun.', 'Un soleillage fait passer le bleu du presque noir dans l’ombre à l’éclat en plein soleil.'),
    material: 'steel', dial: 'midnight-blue', strap: 'alligator-navy', price_cents: eurosToCents(10400), stock_status: 'in_stock' },
  { number: 6, name: L('Lumière Mother-of-Pearl 36', 'Lumière Nacre 36'),
    short_description: L('A smaller 36 mm case with a natural mother-of-pearl dial.', 'Un boîtier plus petit de 36 mm et un cadran en nacre naturelle.'),
    story: L('Cut from the same shell, no two of these dials share the same shimmer.', 'Taillés dans le même coquillage, deux de ces cadrans n’ont jamais le même reflet.'),
    material: 'rose-gold', dial: 'mother-of-pearl', strap: 'calfskin-tan', price_cents: eurosToCents(19900), stock_status: 'low_stock', diameter_mm: 36 },
  { number: 7, name: L('Lumière Platinum Édition', 'Lumière Platine Édition'),
    short_description: L('Platinum and grand feu enamel, limited to 88 pieces a year.', 'Platine et émail grand feu, limitée à 88 pièces par an.'),
    story: L('The Édition is the Lumière the Maison keeps for its own anniversaries: 88 pieces a year, each numbered on the case back.',
      'L’Édition est la Lumière que la Maison réserve à ses anniversaires : 88 pièces par an, chacune numérotée sur le fond.'),
    material: 'platinum', dial: 'white-enamel', strap: 'alligator-black', price_cents: eurosToCents(46500), stock_status: 'made_to_order',
    features: list(['Limited to 88 numbered pieces a year'], ['Limitée à 88 pièces numérotées par an']) },
  { number: 8, name: L('Lumière Forest', 'Lumière Forêt'),
    short_description: L('A fumé green dial that darkens towards the edge, like a fir wood at dusk.', 'Un cadran vert fumé qui s’assombrit vers le bord, comme une forêt de sapins au crépuscule.'),
    story: L('The green recalls the Risoud forest that borders the Vallée de Joux.', 'Le vert évoque la forêt du Risoud qui borde la Vallée de Joux.'),
    material: 'yellow-gold', dial: 'forest-green', strap: 'calfskin-tan', price_cents: eurosToCents(22800), stock_status: 'out_of_stock' },
  { number: 9, name: L('Lumière Black Lacquer', 'Lumière Laque Noire'),
    short_description: L('Gold hands on black lacquer: the Lumière for black-tie evenings.', 'Des aiguilles dorées sur laque noire : la Lumière des soirées en smoking.'),
    story: L('Twelve coats of lacquer are laid and polished by hand until the dial becomes a mirror.', 'Douze couches de laque sont posées et polies à la main jusqu’à faire du cadran un miroir.'),
    material: 'rose-gold', dial: 'black-lacquer', strap: 'alligator-black', price_cents: eurosToCents(20600), stock_status: 'in_stock' },
  { number: 10, name: L('Lumière Mesh', 'Lumière Milanaise'),
    short_description: L('The steel Lumière on a supple Milanese mesh bracelet.', 'La Lumière en acier sur une souple maille milanaise.'),
    story: L('Woven from fine steel wire, the bracelet drapes around the wrist like fabric.', 'Tressé de fins fils d’acier, le bracelet épouse le poignet comme une étoffe.'),
    material: 'steel', dial: 'slate-grey', strap: 'mesh', price_cents: eurosToCents(10900), stock_status: 'in_stock', customizable: false },
];

const lumiereConfigurator = configurator('lumiere', {
  case: [
    option('steel', 'Stainless steel', 'Acier inoxydable'),
    option('rose-gold', '18k rose gold', 'Or rose 18 carats', 11200),
    option('white-gold', '18k white gold', 'Or gris 18 carats', 12400),
    option('platinum', 'Platinum 950', 'Platine 950', 24800),
  ],
  dial: [
    option('silver-opaline', 'Silvered opaline', 'Argenté opalin'),
    option('midnight-blue', 'Midnight blue sunburst', 'Bleu nuit soleillé', 400),
    option('guilloche', 'Hand-guilloché', 'Guilloché main', 3800),
    option('enamel', 'Grand feu enamel', 'Émail grand feu', 5600),
  ],
  crown: crownOptions(false),
  case_back: caseBackOptions(),
  engraving: engravingOptions(),
  bracelet: [
    option('alligator-black', 'Black alligator', 'Alligator noir'),
    option('alligator-brown', 'Brown alligator', 'Alligator brun'),
    option('alligator-navy', 'Navy alligator', 'Alligator bleu marine'),
    option('mesh', 'Milanese mesh', 'Maille milanaise', 850),
  ],
}, [
  accessory('travel-case', 'Leather travel case', 'Étui de voyage en cuir', 390, 2),
  accessory('extra-strap', 'Extra alligator strap', 'Bracelet alligator supplémentaire', 349.5, 4),
  accessory('cufflinks', 'Guilloché cufflinks', 'Boutons de manchette guillochés', 1250, 1),
]);

export const lumiere: DemoCollection = assembleCollection(profile, variants, lumiereConfigurator);
