import { createRouter } from '../../core/routes';
export const forecastRoutes = createRouter();
