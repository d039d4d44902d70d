/**
 * What the space writer runs, loaded on its first call: the content engine (head moves, indexing,
 * translations) is not evaluated when an isolate starts, only when a space's writer first works.
 */
export { catchUpIndexes } from '../services/indexing/catch-up';
export { applyChangeRequestContent, mergeChangeRequest, updateChangeRequest } from '../services/content/head-moves';
export { applyMainContent, createChangeRequestOnMain } from '../services/content/main-edits';
export { assembleTranslation } from '../services/translations/run';
export { applyGitImport, continueGitImport, importInProgress, recordGitExport } from '../services/git-sync/apply';
export { collectSpaceHistory } from '../services/content/history';
