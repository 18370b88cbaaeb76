/**
 * The intelligence module's routers, for the app to mount (one per area: the AI tools, the email
 * drafts, the AI dashboards).
 */
export { aiDashboardRoutes } from './dashboard-routes';
export { draftRoutes } from './draft-routes';
export { aiToolRoutes } from './tool-routes';
