/** Régate: the sport collection. Integrated bracelets, 100 m water resistance, an automatic calibre built to be worn. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { caseBackOptions, crownOptions, engravingOptions, rehautOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'regate',
    name: L('Régate', 'Régate'),
    short_description: L('Sport watches with integrated bracelets, born on the lakes of Geneva and Joux.',
      'Des montres sport à bracelet intégré, nées sur les lacs Léman et de Joux.'),
    description: L(
      'Régate takes its name from the sailing races on Lake Geneva. An octagonal bezel, an integrated bracelet and the ' +
        'automatic calibre AUR 300 make a watch that goes from the deck to the dinner table without a change.',
      'Régate doit son nom aux courses à la voile sur le Léman. Une lunette octogonale, un bracelet intégré et le calibre ' +
        'automatique AUR 300 en font une montre qui passe du pont du bateau à la table du dîner sans se changer.'),
    type: 'sport',
    diameter_mm: 41,
  },
  referencePrefix: 'AUR-SP',
  closing: L('Every Régate is tested for 100 m water resistance before it leaves Le Sentier.',
    'Chaque Régate est contrôlée à 100 m d’étanchéité avant de quitter Le Sentier.'),
  specifications: {
    en: { movement: 'Self-winding mechanical', calibre: 'AUR 300', power_reserve: '70 hours', frequency: '28,800 vph (4 Hz)',
      jewels: '29', water_resistance: '100 m (10 bar)', crystal: 'Sapphire, anti-reflective inside', functions: 'Hours, minutes, seconds, date',
      bezel: 'Octagonal, satin-brushed with polished bevels' },
    fr: { movement: 'Mécanique à remontage automatique', calibre: 'AUR 300', power_reserve: '70 heures', frequency: '28 800 alt/h (4 Hz)',
      jewels: '29', water_resistance: '100 m (10 bar)', crystal: 'Saphir, traité antireflet à l’intérieur', functions: 'Heures, minutes, secondes, date',
      bezel: 'Octogonale, satinée avec biseaux polis' },
  },
  features: list(
    ['Octagonal bezel with eight polished bevels', 'Self-winding calibre AUR 300 with 70-hour reserve'],
    ['Lunette octogonale aux huit biseaux polis', 'Calibre automatique AUR 300, 70 heures de réserve'],
  ),
  keywords: list(['sport watch', 'integrated bracelet', 'automatic watch'], ['montre sport', 'bracelet intégré', 'montre automatique']),
  workshop: L('Sport watch workshop, Le Sentier', 'Atelier des montres sport, Le Sentier'),
  thickness_mm: 9.6,
  firstYear: 2016,
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Régate 41 Blue', 'Régate 41 Bleue'),
    short_description: L('The Régate as it was first launched: steel on steel with a blue dial.', 'La Régate de la première heure : acier sur acier et cadran bleu.'),
    story: L('Launched in 2016, the blue Régate remains the reference most asked for in our boutiques.', 'Lancée en 2016, la Régate bleue reste la référence la plus demandée dans nos boutiques.'),
    material: 'steel', dial: 'midnight-blue', strap: 'steel-bracelet', price_cents: eurosToCents(14900), stock_status: 'low_stock' },
  { number: 2, name: L('Régate 41 Slate', 'Régate 41 Ardoise'),
    short_description: L('A slate-grey dial that goes with everything.', 'Un cadran gris ardoise qui s’accorde avec tout.'),
    story: L('The grey of the dial matches the stone roofs of the villages around the lake.', 'Le gris du cadran rappelle les toits de pierre des villages autour du lac.'),
    material: 'steel', dial: 'slate-grey', strap: 'steel-bracelet', price_cents: eurosToCents(14900), stock_status: 'in_stock' },
  { number: 3, name: L('Régate 41 Green', 'Régate 41 Verte'),
    short_description: L('Forest-green fumé dial on the integrated steel bracelet.', 'Cadran vert forêt fumé sur le bracelet acier intégré.'),
    story: L('A darker green at the edge draws the eye to the centre of the dial.', 'Un vert plus sombre sur le pourtour attire le regard vers le centre du cadran.'),
    material: 'steel', dial: 'forest-green', strap: 'steel-bracelet', price_cents: eurosToCents(15300), stock_status: 'out_of_stock' },
  { number: 4, name: L('Régate 41 Titanium', 'Régate 41 Titane'),
    short_description: L('All titanium, 40 % lighter than steel.', 'Tout en titane, 40 % plus légère que l’acier.'),
    story: L('Designed for sailors who wear their watch at the helm all day long.', 'Conçue pour les navigateurs qui gardent leur montre à la barre toute la journée.'),
    material: 'titanium', dial: 'ocean-blue', strap: 'titanium-bracelet', price_cents: eurosToCents(16800), stock_status: 'in_stock' },
  { number: 5, name: L('Régate 41 Rose Gold', 'Régate 41 Or Rose'),
    short_description: L('Solid rose gold case and bracelet, a chocolate-toned burgundy dial.', 'Boîtier et bracelet en or rose massif, cadran bordeaux aux tons chocolat.'),
    story: L('The gold bracelet alone takes forty hours of polishing and assembly.', 'Le bracelet en or demande à lui seul quarante heures de polissage et d’assemblage.'),
    material: 'rose-gold', dial: 'burgundy', strap: 'gold-bracelet', price_cents: eurosToCents(58500), stock_status: 'made_to_order' },
  { number: 6, name: L('Régate 38 Champagne', 'Régate 38 Champagne'),
    short_description: L('A 38 mm Régate with a champagne dial for smaller wrists.', 'Une Régate de 38 mm au cadran champagne pour les poignets plus fins.'),
    story: L('Scaled down for slimmer wrists, it keeps every proportion of the 41, down to the width of the bevels.', 'Réduite pour les poignets plus fins, elle garde toutes les proportions de la 41, jusqu’à la largeur des biseaux.'),
    material: 'steel', dial: 'champagne', strap: 'steel-bracelet', price_cents: eurosToCents(13900), stock_status: 'in_stock', diameter_mm: 38 },
  { number: 7, name: L('Régate Édition Léman', 'Régate Édition Léman'),
    short_description: L('A numbered series for a century of sailing races on the lake.', 'Une série numérotée pour un siècle de régates sur le lac.'),
    story: L('The Édition Léman celebrates a century of racing on the lake with a gradient dial that shifts from shore to open water.',
      'L’Édition Léman célèbre un siècle de régates sur le lac avec un cadran dégradé qui passe de la rive au large.'),
    material: 'titanium', dial: 'ocean-blue', strap: 'rubber-blue', price_cents: eurosToCents(18400), stock_status: 'low_stock',
    features: list(['Limited edition of 300 numbered pieces'], ['Édition limitée à 300 pièces numérotées']) },
  { number: 8, name: L('Régate 41 Black Ceramic', 'Régate 41 Céramique Noire'),
    short_description: L('A black ceramic case that shrugs off scratches.', 'Un boîtier en céramique noire qui ignore les rayures.'),
    story: L('Sintered at 1,450 °C, the ceramic case is then polished with diamond paste.', 'Frittée à 1 450 °C, la céramique du boîtier est ensuite polie à la pâte diamantée.'),
    material: 'ceramic', dial: 'matte-black', strap: 'rubber-black', price_cents: eurosToCents(17900), stock_status: 'in_stock' },
  { number: 9, name: L('Régate 41 White Gold', 'Régate 41 Or Gris'),
    short_description: L('White gold that passes for steel, until you hold it.', 'De l’or gris qu’on prendrait pour de l’acier, jusqu’à l’avoir en main.'),
    story: L('Collectors call it the discreet Régate: only its weight gives the gold away.', 'Les collectionneurs l’appellent la Régate discrète : seul son poids trahit l’or.'),
    material: 'white-gold', dial: 'midnight-blue', strap: 'gold-bracelet', price_cents: eurosToCents(61200), stock_status: 'made_to_order' },
  { number: 10, name: L('Régate 41 Rubber', 'Régate 41 Caoutchouc'),
    short_description: L('The steel Régate on a blue rubber strap, made for the water.', 'La Régate en acier sur bracelet caoutchouc bleu, faite pour l’eau.'),
    story: L('The strap is moulded to follow the shape of the case, with no gap between lug and rubber.', 'Le bracelet est moulé pour épouser le boîtier, sans jour entre corne et caoutchouc.'),
    material: 'steel', dial: 'midnight-blue', strap: 'rubber-blue', price_cents: eurosToCents(13400), stock_status: 'in_stock', customizable: false },
];

const regateConfigurator = configurator('regate', {
  case: [
    option('steel', 'Stainless steel', 'Acier inoxydable'),
    option('titanium', 'Grade 5 titanium', 'Titane grade 5', 1900),
    option('rose-gold', '18k rose gold', 'Or rose 18 carats', 28500),
  ],
  dial: [
    option('midnight-blue', 'Midnight blue', 'Bleu nuit'),
    option('slate-grey', 'Slate grey', 'Gris ardoise'),
    option('forest-green', 'Forest green', 'Vert forêt', 400),
    option('ocean-blue', 'Ocean blue gradient', 'Dégradé bleu océan', 600),
  ],
  crown: crownOptions(false),
  case_back: caseBackOptions(),
  engraving: engravingOptions(),
  rehaut: rehautOptions(),
  bracelet: [
    option('steel-bracelet', 'Integrated steel bracelet', 'Bracelet acier intégré'),
    option('rubber-blue', 'Blue rubber strap', 'Bracelet caoutchouc bleu'),
    option('rubber-black', 'Black rubber strap', 'Bracelet caoutchouc noir'),
  ],
}, [
  accessory('rubber-strap', 'Extra rubber strap with quick release', 'Bracelet caoutchouc supplémentaire à attache rapide', 290, 3),
  accessory('travel-case', 'Waterproof travel case', 'Étui de voyage étanche', 420, 2),
  accessory('winder', 'Single watch winder', 'Remontoir pour une montre', 1450, 1),
]);

export const regate: DemoCollection = assembleCollection(profile, variants, regateConfigurator);
