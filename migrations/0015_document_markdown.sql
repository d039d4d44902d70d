-- The Markdown of a page document or reusable content (services/markdown documentToMarkdown of its
-- body), computed once when the document is stored, so tree reads give every page its Markdown
-- without converting documents. Null for the nodes and chunks of page and file maps, and for
-- documents stored before this migration (reads convert their body instead).
ALTER TABLE `documents` ADD `markdown` text;
