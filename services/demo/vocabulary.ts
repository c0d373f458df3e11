/**
 * Case materials, dials and straps of the demo watches, phrased once in both languages so every watch that uses
 * them reads the same way. `phrase` fits inside a sentence; `spec` is the specification value; `feature` a list item.
 */
import type { LocalizedText } from '../../shared/events/index.ts';

interface Term {
  phrase: LocalizedText;
  spec: LocalizedText;
  feature?: LocalizedText;
}

const t = (phrase: [string, string], spec: [string, string], feature?: [string, string]): Term => ({
  phrase: { en: phrase[0], fr: phrase[1] },
  spec: { en: spec[0], fr: spec[1] },
  ...(feature ? { feature: { en: feature[0], fr: feature[1] } } : {}),
});

export const MATERIALS = {
  steel: t(['stainless steel', 'acier inoxydable'], ['Stainless steel 316L', 'Acier inoxydable 316L']),
  'steel-904l': t(['904L steel', 'acier 904L'], ['Stainless steel 904L', 'Acier inoxydable 904L'],
    ['904L steel case, polished and satin-brushed', 'Boîtier en acier 904L, poli et satiné']),
  'rose-gold': t(['18k rose gold', 'or rose 18 carats'], ['18k 5N rose gold', 'Or rose 5N 18 carats'],
    ['Case in 18k 5N rose gold', 'Boîtier en or rose 5N 18 carats']),
  'white-gold': t(['18k white gold', 'or gris 18 carats'], ['18k white gold', 'Or gris 18 carats'],
    ['Case in 18k white gold', 'Boîtier en or gris 18 carats']),
  'yellow-gold': t(['18k yellow gold', 'or jaune 18 carats'], ['18k 3N yellow gold', 'Or jaune 3N 18 carats'],
    ['Case in 18k 3N yellow gold', 'Boîtier en or jaune 3N 18 carats']),
  platinum: t(['950 platinum', 'platine 950'], ['Platinum 950', 'Platine 950'],
    ['Platinum 950 case, hallmarked on the lug', 'Boîtier en platine 950, poinçonné sur la corne']),
  titanium: t(['grade 5 titanium', 'titane grade 5'], ['Grade 5 titanium', 'Titane grade 5'],
    ['Light grade 5 titanium case', 'Boîtier léger en titane grade 5']),
  bronze: t(['CuSn8 bronze', 'bronze CuSn8'], ['CuSn8 bronze, titanium case back', 'Bronze CuSn8, fond en titane'],
    ['Bronze case that takes its own patina', 'Boîtier en bronze qui se patine avec le temps']),
  ceramic: t(['black zirconia ceramic', 'céramique de zircone noire'], ['Black zirconia ceramic', 'Céramique de zircone noire'],
    ['Scratch-resistant ceramic case', 'Boîtier en céramique inrayable']),
} as const satisfies Record<string, Term>;
export type MaterialKey = keyof typeof MATERIALS;

export const DIALS = {
  'silver-opaline': t(['a silvered opaline dial', 'un cadran argenté opalin'], ['Silvered opaline', 'Argenté opalin']),
  'white-enamel': t(['a white grand feu enamel dial', 'un cadran en émail grand feu blanc'], ['White grand feu enamel', 'Émail grand feu blanc'],
    ['Grand feu enamel dial, fired several times', 'Cadran en émail grand feu, cuit à plusieurs reprises']),
  'midnight-blue': t(['a midnight-blue sunburst dial', 'un cadran bleu nuit soleillé'], ['Midnight blue, sunburst', 'Bleu nuit soleillé']),
  'black-lacquer': t(['a black lacquered dial', 'un cadran laqué noir'], ['Black lacquer', 'Laque noire']),
  salmon: t(['a salmon dial', 'un cadran saumon'], ['Salmon, grained', 'Saumon grené']),
  guilloche: t(['a hand-guilloché silver dial', 'un cadran argenté guilloché main'], ['Silver, hand-guilloché "clous de Paris"', 'Argenté, guilloché main « clous de Paris »'],
    ['Dial guilloché by hand on a rose engine', 'Cadran guilloché à la main sur tour à guillocher']),
  'forest-green': t(['a forest-green fumé dial', 'un cadran vert forêt fumé'], ['Forest green, fumé', 'Vert forêt fumé']),
  'slate-grey': t(['a slate-grey dial', 'un cadran gris ardoise'], ['Slate grey, satin-brushed', 'Gris ardoise satiné']),
  'ocean-blue': t(['an ocean-blue gradient dial', 'un cadran dégradé bleu océan'], ['Ocean blue gradient', 'Dégradé bleu océan']),
  'matte-black': t(['a matte black dial with luminous numerals', 'un cadran noir mat aux chiffres luminescents'], ['Matte black, Super-LumiNova numerals', 'Noir mat, chiffres Super-LumiNova'],
    ['Super-LumiNova numerals and hands', 'Chiffres et aiguilles Super-LumiNova']),
  'panda': t(['a white "panda" dial with black counters', 'un cadran blanc « panda » aux compteurs noirs'], ['White with black counters', 'Blanc, compteurs noirs']),
  'reverse-panda': t(['a black dial with white counters', 'un cadran noir aux compteurs blancs'], ['Black with white counters', 'Noir, compteurs blancs']),
  'champagne': t(['a champagne dial', 'un cadran champagne'], ['Champagne, vertical brushing', 'Champagne, brossé vertical']),
  'aventurine': t(['an aventurine dial flecked like a night sky', 'un cadran en aventurine pailleté comme un ciel nocturne'], ['Blue aventurine glass', 'Verre aventurine bleu'],
    ['Aventurine dial, each one unique', 'Cadran en aventurine, chacun unique']),
  'meteorite': t(['a meteorite dial', 'un cadran en météorite'], ['Gibeon meteorite', 'Météorite de Gibeon'],
    ['Dial cut from Gibeon meteorite', 'Cadran taillé dans la météorite de Gibeon']),
  'skeleton': t(['an openworked dial that reveals the movement', 'un cadran ajouré qui dévoile le mouvement'], ['Openworked, sapphire chapter ring', 'Ajouré, rehaut en saphir'],
    ['Openworked dial and bridges', 'Cadran et ponts ajourés']),
  'cream-vintage': t(['a cream dial with aged luminous markers', 'un cadran crème aux index luminescents vieillis'], ['Cream, vintage Super-LumiNova', 'Crème, Super-LumiNova vintage']),
  'burgundy': t(['a burgundy sunburst dial', 'un cadran bordeaux soleillé'], ['Burgundy, sunburst', 'Bordeaux soleillé']),
  'sector': t(['a two-tone sector dial', 'un cadran sectoriel bicolore'], ['Two-tone sector dial', 'Cadran sectoriel bicolore']),
  'mother-of-pearl': t(['a white mother-of-pearl dial', 'un cadran en nacre blanche'], ['White mother-of-pearl', 'Nacre blanche'],
    ['Natural mother-of-pearl dial', 'Cadran en nacre naturelle']),
} as const satisfies Record<string, Term>;
export type DialKey = keyof typeof DIALS;

export const STRAPS = {
  'alligator-brown': t(['a brown alligator strap', 'un bracelet en alligator brun'], ['Brown alligator, pin buckle', 'Alligator brun, boucle ardillon']),
  'alligator-black': t(['a black alligator strap', 'un bracelet en alligator noir'], ['Black alligator, folding clasp', 'Alligator noir, boucle déployante']),
  'alligator-navy': t(['a navy alligator strap', 'un bracelet en alligator bleu marine'], ['Navy alligator, pin buckle', 'Alligator bleu marine, boucle ardillon']),
  'calfskin-tan': t(['a tan calfskin strap', 'un bracelet en veau havane'], ['Tan calfskin, hand-stitched', 'Veau havane, cousu main']),
  'rubber-black': t(['a black rubber strap', 'un bracelet en caoutchouc noir'], ['Black vulcanised rubber, folding clasp', 'Caoutchouc vulcanisé noir, boucle déployante']),
  'rubber-blue': t(['a blue rubber strap', 'un bracelet en caoutchouc bleu'], ['Blue vulcanised rubber, folding clasp', 'Caoutchouc vulcanisé bleu, boucle déployante']),
  'steel-bracelet': t(['an integrated steel bracelet', 'un bracelet intégré en acier'], ['Steel bracelet, micro-adjustable clasp', 'Bracelet acier, fermoir à réglage fin'],
    ['Bracelet with tool-free micro-adjustment', 'Bracelet à réglage fin sans outil']),
  'titanium-bracelet': t(['a titanium bracelet', 'un bracelet en titane'], ['Titanium bracelet, folding clasp', 'Bracelet titane, boucle déployante']),
  'gold-bracelet': t(['a matching gold bracelet', 'un bracelet en or assorti'], ['18k gold bracelet, hidden clasp', 'Bracelet or 18 carats, fermoir invisible']),
  'nato-khaki': t(['a khaki fabric strap', 'un bracelet en tissu kaki'], ['Khaki recycled nylon', 'Nylon recyclé kaki']),
  'aviator-leather': t(['a riveted aviator leather strap', 'un bracelet aviateur en cuir riveté'], ['Brown leather, rivets', 'Cuir brun riveté']),
  'mesh': t(['a Milanese mesh bracelet', 'un bracelet en maille milanaise'], ['Milanese mesh, sliding clasp', 'Maille milanaise, fermoir coulissant']),
} as const satisfies Record<string, Term>;
export type StrapKey = keyof typeof STRAPS;
