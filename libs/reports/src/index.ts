/** Public entry of libs/reports: the weekly report model, its builder and sources, and the renderers. */
export * from './report.model';
export * from './report.builder';
export * from './report.source';
export * from './report.service';
export * from './render/index';
export * from './chat/chat-message';
export * from './chat/chat-delivery';
export * from './report-team';
