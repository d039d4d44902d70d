-- Hand-written (issue 42, storage): page documents stored packed. A page document or reusable content written from
-- now on keeps its canonical JSON compressed (a BLOB in `body`, services/content/packed-documents) and, in `refs`,
-- what statements look up inside it without unpacking it (its nodes' keys, the reusable contents and files it
-- names). Documents already stored keep their JSON body and no refs; every reader takes both forms.
ALTER TABLE `documents` ADD `refs` text;
