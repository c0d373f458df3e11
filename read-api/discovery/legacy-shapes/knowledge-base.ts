/**
 * Section 2.4 "Knowledge base" bodies: documented for completeness, used by no public operation. The seed gives
 * them no names; these say what each body is for. `tags`, `models` and `related_parts` are JSON lists sent as text.
 */
import Type from 'typebox';
import { Binary } from './shape-kit.ts';

const articleFields = {
  title: Type.String(),
  content: Type.String(),
  category_id: Type.Integer(),
  summary: Type.Optional(Type.String({ default: '' })),
  tags: Type.Optional(Type.String({ default: '[]' })),
  models: Type.Optional(Type.String({ default: '[]' })),
  related_parts: Type.Optional(Type.String({ default: '[]' })),
};

const ArticleCreate = Type.Object({
  ...articleFields, status: Type.Optional(Type.String({ default: 'pending' })),
}, { title: 'ArticleCreate' });

const ArticleUpdate = Type.Object(articleFields, { title: 'ArticleUpdate' });

const ArticleReview = Type.Object({
  action: Type.String(), note: Type.Optional(Type.String({ default: '' })),
}, { title: 'ArticleReview' });

const ArticleComment = Type.Object({ content: Type.String() }, { title: 'ArticleComment' });

const KnowledgeCategory = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String({ default: '' })),
  icon: Type.Optional(Type.String({ default: 'FileText' })),
}, { title: 'KnowledgeCategory' });

const AttachmentUpload = Type.Object({ file: Binary() }, { title: 'AttachmentUpload' });

export const knowledgeBaseShapes = [ArticleCreate, ArticleUpdate, ArticleReview, ArticleComment, KnowledgeCategory, AttachmentUpload];
