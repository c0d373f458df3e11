/** Abysse: the diver collection. 300 m, unidirectional bezels, luminous dials legible in the deep. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { engravingOptions, rehautOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'abysse',
    name: L('Abysse', 'Abysse'),
    short_description: L('Professional diving watches, water-resistant to 300 metres.', 'Des montres de plongée professionnelles, étanches à 300 mètres.'),
    description: L(
      'Abysse was developed with the divers of the Lake Geneva rescue brigade. Each watch meets ISO 6425, carries a ' +
        'ceramic unidirectional bezel and a helium escape valve, and keeps its luminous markers readable at depth.',
      'Abysse a été mise au point avec les plongeurs de la brigade de sauvetage du Léman. Chaque montre répond à la ' +
        'norme ISO 6425, porte une lunette unidirectionnelle en céramique et une valve à hélium, et garde ses index lisibles en profondeur.'),
    type: 'diver',
    diameter_mm: 42,
  },
  referencePrefix: 'AUR-DV',
  closing: L('Each Abysse is pressure-tested in water at 375 m before delivery, 25 % beyond its rating.',
    'Chaque Abysse est testée sous l’eau à 375 m avant livraison, 25 % au-delà de sa certification.'),
  specifications: {
    en: { movement: 'Self-winding mechanical', calibre: 'AUR 310', power_reserve: '72 hours', frequency: '28,800 vph (4 Hz)',
      jewels: '31', water_resistance: '300 m (30 bar), ISO 6425', crystal: 'Domed sapphire, 3.5 mm thick',
      functions: 'Hours, minutes, seconds, date', bezel: 'Unidirectional, ceramic insert, 120 clicks' },
    fr: { movement: 'Mécanique à remontage automatique', calibre: 'AUR 310', power_reserve: '72 heures', frequency: '28 800 alt/h (4 Hz)',
      jewels: '31', water_resistance: '300 m (30 bar), ISO 6425', crystal: 'Saphir bombé de 3,5 mm d’épaisseur',
      functions: 'Heures, minutes, secondes, date', bezel: 'Unidirectionnelle, insert céramique, 120 crans' },
  },
  features: list(
    ['Unidirectional ceramic bezel', 'Helium escape valve at 10 o’clock', 'Screw-down crown'],
    ['Lunette unidirectionnelle en céramique', 'Valve à hélium à 10 heures', 'Couronne vissée'],
  ),
  keywords: list(['diving watch', 'dive watch 300 m', 'ISO 6425'], ['montre de plongée', 'plongée 300 m', 'ISO 6425']),
  workshop: L('Diver watch workshop, Le Brassus', 'Atelier des montres de plongée, Le Brassus'),
  thickness_mm: 13.2,
  firstYear: 2015,
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Abysse 300 Black', 'Abysse 300 Noire'),
    short_description: L('The original Abysse: matte black dial, black ceramic bezel.', 'L’Abysse d’origine : cadran noir mat, lunette en céramique noire.'),
    story: L('This is the watch the rescue brigade tested for two winters under the ice of the Lac de Joux.', 'C’est la montre que la brigade de sauvetage a éprouvée deux hivers durant sous la glace du lac de Joux.'),
    material: 'steel', dial: 'matte-black', strap: 'steel-bracelet', price_cents: eurosToCents(8900), stock_status: 'in_stock' },
  { number: 2, name: L('Abysse 300 Ocean', 'Abysse 300 Océan'),
    short_description: L('A blue gradient dial that darkens like the water below.', 'Un cadran dégradé bleu qui s’assombrit comme l’eau en profondeur.'),
    story: L('The gradient goes from turquoise at the centre to near-black at the edge, the colours of a descent.', 'Le dégradé passe du turquoise au centre au presque noir sur le bord, les couleurs d’une descente.'),
    material: 'steel', dial: 'ocean-blue', strap: 'rubber-blue', price_cents: eurosToCents(8900), stock_status: 'low_stock' },
  { number: 3, name: L('Abysse 300 Titanium', 'Abysse 300 Titane'),
    short_description: L('Grade 5 titanium for long dives and long days.', 'Du titane grade 5 pour les longues plongées et les longues journées.'),
    story: L('At 98 grams on its bracelet, it is the lightest professional diver the Maison has made.', 'Avec 98 grammes sur son bracelet, c’est la plus légère des montres de plongée professionnelles de la Maison.'),
    material: 'titanium', dial: 'matte-black', strap: 'titanium-bracelet', price_cents: eurosToCents(10800), stock_status: 'in_stock' },
  { number: 4, name: L('Abysse 300 Bronze', 'Abysse 300 Bronze'),
    short_description: L('A bronze case that ages like the fittings of an old diving helmet.', 'Un boîtier en bronze qui vieillit comme les pièces d’un ancien scaphandre.'),
    story: L('No two bronze Abysse look alike after a year: the patina follows its owner’s life.', 'Deux Abysse en bronze ne se ressemblent plus après un an : la patine suit la vie de son propriétaire.'),
    material: 'bronze', dial: 'forest-green', strap: 'nato-khaki', price_cents: eurosToCents(9800), stock_status: 'out_of_stock' },
  { number: 5, name: L('Abysse 300 Limited Edition', 'Abysse 300 Édition Limitée'),
    short_description: L('A numbered series of 500 with a meteorite dial.', 'Une série numérotée de 500 pièces au cadran en météorite.'),
    story: L('Its dial is cut from a meteorite that fell in Namibia, a stone from the deep sky for a watch of the deep sea.',
      'Son cadran est taillé dans une météorite tombée en Namibie, une pierre du ciel profond pour une montre des grands fonds.'),
    material: 'titanium', dial: 'meteorite', strap: 'rubber-black', price_cents: eurosToCents(16900), stock_status: 'low_stock',
    features: list(['Limited edition of 500 numbered pieces'], ['Édition limitée à 500 pièces numérotées']) },
  { number: 6, name: L('Abysse 1000 Deep', 'Abysse 1000 Grands Fonds'),
    short_description: L('Water-resistant to 1,000 metres for saturation divers.', 'Étanche à 1 000 mètres pour les plongeurs en saturation.'),
    story: L('A thicker sapphire and a reinforced case back take the Abysse down to 1,000 metres.', 'Un saphir plus épais et un fond renforcé emmènent l’Abysse jusqu’à 1 000 mètres.'),
    material: 'titanium', dial: 'matte-black', strap: 'rubber-black', price_cents: eurosToCents(13500), stock_status: 'made_to_order', diameter_mm: 44,
    specifications: {
      en: { water_resistance: '1,000 m (100 bar), ISO 6425', case_thickness: '15.8 mm' },
      fr: { water_resistance: '1 000 m (100 bar), ISO 6425', case_thickness: '15,8 mm' },
    } },
  { number: 7, name: L('Abysse 300 Rose Gold', 'Abysse 300 Or Rose'),
    short_description: L('A diver in rose gold, with a brown ceramic bezel.', 'Une plongeuse en or rose, à la lunette en céramique brune.'),
    story: L('Gold does not fear salt water: this Abysse is as much at home on a reef as on a terrace.', 'L’or ne craint pas l’eau de mer : cette Abysse est aussi à l’aise sur un récif qu’en terrasse.'),
    material: 'rose-gold', dial: 'matte-black', strap: 'rubber-black', price_cents: eurosToCents(32500), stock_status: 'made_to_order' },
  { number: 8, name: L('Abysse 300 Ceramic', 'Abysse 300 Céramique'),
    short_description: L('Black ceramic from case to bezel, for night dives.', 'De la céramique noire du boîtier à la lunette, pour les plongées de nuit.'),
    story: L('Entirely black, it vanishes in the dark and leaves only the glow of the markers.', 'Entièrement noire, elle disparaît dans l’obscurité pour ne laisser que la lueur des index.'),
    material: 'ceramic', dial: 'matte-black', strap: 'rubber-black', price_cents: eurosToCents(11900), stock_status: 'in_stock' },
  { number: 9, name: L('Abysse 39 Heritage Diver', 'Abysse 39 Plongeuse Héritage'),
    short_description: L('A 39 mm Abysse with cream markers, after our diver of 1962.', 'Une Abysse de 39 mm aux index crème, d’après notre plongeuse de 1962.'),
    story: L('The case shape and the arrow hand come straight from the Maison’s first diving watch, made in 1962.', 'La forme du boîtier et l’aiguille flèche viennent tout droit de la première montre de plongée de la Maison, en 1962.'),
    material: 'steel', dial: 'cream-vintage', strap: 'steel-bracelet', price_cents: eurosToCents(8400), stock_status: 'in_stock', diameter_mm: 39 },
  { number: 10, name: L('Abysse 300 Mesh', 'Abysse 300 Maille'),
    short_description: L('The black Abysse on a heavy steel mesh, as divers wore it in the 1970s.', 'L’Abysse noire sur une épaisse maille d’acier, comme la portaient les plongeurs des années 1970.'),
    story: L('A shark-mesh bracelet was the divers’ choice before rubber: it never tears and never floats away.', 'Avant le caoutchouc, les plongeurs choisissaient la maille : elle ne se déchire jamais et ne s’échappe pas.'),
    material: 'steel', dial: 'matte-black', strap: 'mesh', price_cents: eurosToCents(9300), stock_status: 'low_stock', customizable: false },
];

const abysseConfigurator = configurator('abysse', {
  case: [
    option('steel', 'Stainless steel', 'Acier inoxydable'),
    option('titanium', 'Grade 5 titanium', 'Titane grade 5', 1900),
    option('bronze', 'CuSn8 bronze', 'Bronze CuSn8', 900),
    option('ceramic', 'Black ceramic', 'Céramique noire', 3000),
  ],
  dial: [
    option('matte-black', 'Matte black', 'Noir mat'),
    option('ocean-blue', 'Ocean blue gradient', 'Dégradé bleu océan', 400),
    option('forest-green', 'Forest green', 'Vert forêt', 400),
  ],
  engraving: engravingOptions(),
  rehaut: rehautOptions(),
  bracelet: [
    option('steel-bracelet', 'Steel bracelet with diving extension', 'Bracelet acier avec rallonge de plongée'),
    option('rubber-black', 'Black rubber strap', 'Bracelet caoutchouc noir'),
    option('rubber-blue', 'Blue rubber strap', 'Bracelet caoutchouc bleu'),
    option('nato-khaki', 'Khaki fabric strap', 'Bracelet tissu kaki'),
  ],
}, [
  accessory('rubber-strap', 'Extra rubber strap', 'Bracelet caoutchouc supplémentaire', 290, 3),
  accessory('fabric-strap', 'Recycled fabric strap', 'Bracelet en tissu recyclé', 149.5, 4),
  accessory('dive-case', 'Waterproof dive case', 'Étui de plongée étanche', 380, 1),
]);

export const abysse: DemoCollection = assembleCollection(profile, variants, abysseConfigurator);
