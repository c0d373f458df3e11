/** Héritage 1891: the heritage collection. Faithful re-editions of pieces from the Maison’s archives. */
import { eurosToCents } from '../../../shared/money/cents.ts';
import { caseBackOptions, crownOptions, engravingOptions } from '../common-options.ts';
import { accessory, configurator, option } from '../configurator-builder.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from '../demo-types.ts';
import { L, list } from '../localized.ts';
import { assembleCollection } from '../watch-builder.ts';

const profile: CollectionProfile = {
  collection: {
    code: 'heritage-1891',
    name: L('Heritage 1891', 'Héritage 1891'),
    short_description: L('Re-editions of historic pieces from the Maison’s archives.', 'Des rééditions de pièces historiques tirées des archives de la Maison.'),
    description: L(
      'Heritage 1891 brings back watches from our archives, redrawn from the original plans kept in Le Sentier. Cases, ' +
        'hands and numerals follow the originals; the movements are today’s, made in our Besançon workshop for the French pieces.',
      'Héritage 1891 fait revivre des montres de nos archives, redessinées d’après les plans originaux conservés au Sentier. ' +
        'Boîtiers, aiguilles et chiffres suivent les originaux ; les mouvements sont d’aujourd’hui, ceux des pièces françaises venant de notre atelier de Besançon.'),
    type: 'heritage',
    diameter_mm: 38,
  },
  referencePrefix: 'AUR-HE',
  closing: L('Its certificate names the archive piece it descends from and the year it was first made.',
    'Son certificat nomme la pièce d’archive dont elle descend et l’année de sa première fabrication.'),
  specifications: {
    en: { movement: 'Self-winding mechanical', calibre: 'AUR 210', power_reserve: '50 hours', frequency: '28,800 vph (4 Hz)',
      jewels: '25', water_resistance: '50 m (5 bar)', crystal: 'Domed sapphire, vintage profile', functions: 'Hours, minutes, seconds' },
    fr: { movement: 'Mécanique à remontage automatique', calibre: 'AUR 210', power_reserve: '50 heures', frequency: '28 800 alt/h (4 Hz)',
      jewels: '25', water_resistance: '50 m (5 bar)', crystal: 'Saphir bombé, profil vintage', functions: 'Heures, minutes, secondes' },
  },
  features: list(
    ['Redrawn from the original archive plans', 'Domed sapphire with a vintage profile'],
    ['Redessinée d’après les plans d’archive originaux', 'Saphir bombé au profil vintage'],
  ),
  keywords: list(['heritage watch', 'vintage re-edition', 'watch archives'], ['montre héritage', 'réédition vintage', 'archives horlogères']),
  workshop: L('Heritage workshop, Besançon', 'Atelier Héritage, Besançon'),
  thickness_mm: 11.2,
  firstYear: 2010,
};

const variants: WatchVariant[] = [
  { number: 1, name: L('Heritage 1891 Officer', 'Héritage 1891 Officier'),
    short_description: L('The hinged-lid officer’s watch of 1916, redrawn for today.', 'La montre d’officier à couvercle de 1916, redessinée pour aujourd’hui.'),
    story: L('Officers of 1916 wore their pocket watches on the wrist; the Maison soldered on wire lugs, and this watch was born.',
      'En 1916, les officiers portaient leur montre de poche au poignet ; la Maison y souda des anses en fil, et cette montre naquit.'),
    material: 'yellow-gold', dial: 'white-enamel', strap: 'calfskin-tan', price_cents: eurosToCents(16800), stock_status: 'low_stock' },
  { number: 2, name: L('Heritage 1891 Sector 1934', 'Héritage 1891 Sectoriel 1934'),
    short_description: L('An Art Deco sector dial from 1934, in two shades of silver.', 'Un cadran sectoriel Art déco de 1934, en deux tons d’argent.'),
    story: L('Sector dials appeared in the 1930s, when precision became the new luxury.', 'Les cadrans sectoriels sont apparus dans les années 1930, quand la précision devint le nouveau luxe.'),
    material: 'steel', dial: 'sector', strap: 'alligator-black', price_cents: eurosToCents(6900), stock_status: 'in_stock' },
  { number: 3, name: L('Heritage 1891 Round 1948', 'Héritage 1891 Ronde 1948'),
    short_description: L('A round 1948 dress watch with dauphine hands.', 'Une montre habillée ronde de 1948 aux aiguilles dauphine.'),
    story: L('The original was made for the Maison’s own watchmakers, who received one after twenty-five years of service.',
      'L’original était réservé aux horlogers de la Maison, qui le recevaient après vingt-cinq ans de service.'),
    material: 'rose-gold', dial: 'champagne', strap: 'alligator-brown', price_cents: eurosToCents(15400), stock_status: 'in_stock' },
  { number: 4, name: L('Heritage 1891 Chronograph 1952', 'Héritage 1891 Chronographe 1952'),
    short_description: L('A two-counter chronograph from 1952 with a hand-wound movement.', 'Un chronographe à deux compteurs de 1952, à remontage manuel.'),
    story: L('The pump pushers and the snail-track tachymeter are copied line for line from the archive piece.',
      'Les poussoirs pompe et le tachymètre en escargot sont copiés trait pour trait sur la pièce d’archive.'),
    material: 'steel', dial: 'panda', strap: 'calfskin-tan', price_cents: eurosToCents(11800), stock_status: 'out_of_stock',
    specifications: { en: { movement: 'Hand-wound mechanical chronograph', calibre: 'AUR 215', functions: 'Hours, minutes, small seconds, chronograph' },
      fr: { movement: 'Chronographe mécanique à remontage manuel', calibre: 'AUR 215', functions: 'Heures, minutes, petite seconde, chronographe' } } },
  { number: 5, name: L('Heritage 1891 Diver 1962', 'Héritage 1891 Plongée 1962'),
    short_description: L('Our first diver of 1962 with its aged luminous markers.', 'Notre première plongeuse de 1962 et ses index luminescents vieillis.'),
    story: L('Its bakelite-look bezel and faded markers bring back the first dives of the Lake Geneva brigade.',
      'Sa lunette façon bakélite et ses index passés rappellent les premières plongées de la brigade du Léman.'),
    material: 'steel', dial: 'cream-vintage', strap: 'mesh', price_cents: eurosToCents(7400), stock_status: 'in_stock', diameter_mm: 39 },
  { number: 6, name: L('Heritage 1891 Besançon Chronometer', 'Héritage 1891 Chronomètre de Besançon'),
    short_description: L('A chronometer certified by the Besançon observatory, as in 1958.', 'Un chronomètre certifié par l’observatoire de Besançon, comme en 1958.'),
    story: L('The Maison’s French workshop won the Besançon chronometry trials in 1958; this watch carries the observatory’s viper head.',
      'L’atelier français de la Maison remporta les concours de chronométrie de Besançon en 1958 ; cette montre porte la tête de vipère de l’observatoire.'),
    material: 'steel', dial: 'silver-opaline', strap: 'alligator-navy', price_cents: eurosToCents(8900), stock_status: 'low_stock',
    features: list(['Certified chronometer, Besançon observatory'], ['Chronomètre certifié par l’observatoire de Besançon']) },
  { number: 7, name: L('Heritage 1891 Édition Fondateur', 'Héritage 1891 Édition Fondateur'),
    short_description: L('A tribute to the founder, Aurèle Vuillerme, in 1891 pieces.', 'Un hommage au fondateur, Aurèle Vuillerme, en 1 891 exemplaires.'),
    story: L('The Édition Fondateur reproduces the signature Aurèle Vuillerme engraved on his first movement.',
      'L’Édition Fondateur reproduit la signature qu’Aurèle Vuillerme grava sur son premier mouvement.'),
    material: 'rose-gold', dial: 'guilloche', strap: 'alligator-brown', price_cents: eurosToCents(19800), stock_status: 'made_to_order',
    features: list(['Limited edition of 1891 numbered pieces'], ['Édition limitée à 1 891 pièces numérotées']) },
  { number: 8, name: L('Heritage 1891 Cushion 1970', 'Héritage 1891 Coussin 1970'),
    short_description: L('A cushion-shaped case with a burgundy dial, straight out of 1970.', 'Un boîtier coussin au cadran bordeaux, tout droit venu de 1970.'),
    story: L('Cushion cases were the shape of the seventies; this one keeps the original’s brushed sides.', 'Le coussin était la forme des années soixante-dix ; celui-ci garde les flancs brossés de l’original.'),
    material: 'steel', dial: 'burgundy', strap: 'calfskin-tan', price_cents: eurosToCents(6400), stock_status: 'in_stock', diameter_mm: 40 },
  { number: 9, name: L('Heritage 1891 Railway', 'Héritage 1891 Chemin de Fer'),
    short_description: L('Bold numerals and a railway track, from the watches of the Swiss railways.', 'Des chiffres francs et une minuterie chemin de fer, hérités des montres des chemins de fer.'),
    story: L('Railway conductors needed to read the time to the minute in a moving carriage; the dial has not changed since 1926.',
      'Les contrôleurs devaient lire l’heure à la minute dans un wagon en marche ; le cadran n’a pas changé depuis 1926.'),
    material: 'steel', dial: 'white-enamel', strap: 'calfskin-tan', price_cents: eurosToCents(5900), stock_status: 'in_stock', customizable: false },
  { number: 10, name: L('Heritage 1891 Skeleton Pocket', 'Héritage 1891 Gousset Squelette'),
    short_description: L('The Maison’s 1891 pocket watch movement, openworked and worn on the wrist.', 'Le mouvement de gousset de 1891, ajouré et porté au poignet.'),
    story: L('The founder’s pocket calibre has been rebuilt, skeletonised and set in a wristwatch case for the first time.',
      'Le calibre de gousset du fondateur a été reconstruit, squeletté et logé pour la première fois dans une montre-bracelet.'),
    material: 'white-gold', dial: 'skeleton', strap: 'alligator-black', price_cents: eurosToCents(42500), stock_status: 'made_to_order', diameter_mm: 42,
    specifications: { en: { movement: 'Hand-wound mechanical, openworked', calibre: 'AUR 1891 SQ', power_reserve: '44 hours' },
      fr: { movement: 'Mécanique à remontage manuel, ajouré', calibre: 'AUR 1891 SQ', power_reserve: '44 heures' } } },
];

const heritageConfigurator = configurator('heritage-1891', {
  case: [
    option('steel', 'Stainless steel', 'Acier inoxydable'),
    option('rose-gold', '18k rose gold', 'Or rose 18 carats', 8900),
    option('yellow-gold', '18k yellow gold', 'Or jaune 18 carats', 8900),
  ],
  dial: [
    option('silver-opaline', 'Silvered opaline', 'Argenté opalin'),
    option('cream-vintage', 'Cream with aged numerals', 'Crème aux chiffres vieillis'),
    option('enamel', 'Grand feu enamel', 'Émail grand feu', 4800),
  ],
  lugs: [
    option('straight', 'Straight lugs', 'Cornes droites'),
    option('wire', 'Soldered wire lugs, as in 1916', 'Anses en fil soudées, comme en 1916', 700),
  ],
  crown: crownOptions(false),
  case_back: caseBackOptions(),
  engraving: engravingOptions(),
  bracelet: [
    option('calfskin-tan', 'Tan calfskin', 'Veau havane'),
    option('alligator-brown', 'Brown alligator', 'Alligator brun', 250),
    option('mesh', 'Milanese mesh', 'Maille milanaise', 650),
  ],
}, [
  accessory('archive-book', 'Archive book, numbered copy', 'Livre d’archives, exemplaire numéroté', 120, 3),
  accessory('travel-case', 'Vintage-style leather case', 'Étui en cuir de style vintage', 340, 2),
]);

export const heritage: DemoCollection = assembleCollection(profile, variants, heritageConfigurator);
