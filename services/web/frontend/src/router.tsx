import { lazy, Suspense } from 'react';
import { createBrowserRouter } from 'react-router-dom';
import { PublicLayout } from './pages/PublicLayout';
import { HomePage } from './pages/HomePage';
import { TurkishPage } from './pages/TurkishPage';
import { SignInPage } from './pages/SignInPage';
import { SandboxPage } from './pages/SandboxPage';
import { WorkspaceLayout } from './pages/WorkspaceLayout';
import { CampaignsPage } from './pages/CampaignsPage';
import { CampaignCreatePage } from './pages/CampaignCreatePage';
import { CampaignDetailPage } from './pages/CampaignDetailPage';
import { PublishersPage } from './pages/PublishersPage';
import { PublisherDetailPage } from './pages/PublisherDetailPage';
import { AuditPage } from './pages/AuditPage';
import { PlacementsPage } from './pages/PlacementsPage';
import { NotFoundPage } from './pages/NotFoundPage';
import type { GuidePageName } from './pages/GuidePage';

// The dashboard carries the chart library: loaded only when opened, with a word on screen meanwhile.
const DashboardPage = lazy(() => import('./pages/DashboardPage').then((module) => ({ default: module.DashboardPage })));

// The guide is long text: loaded only when opened, like the dashboard.
const GuidePage = lazy(() => import('./pages/GuidePage').then((module) => ({ default: module.GuidePage })));

function LazyGuide({ page }: { page?: GuidePageName }) {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the guide…
        </p>
      }
    >
      <GuidePage page={page} />
    </Suspense>
  );
}

// The review queue is an administrator's page with the ad previews and shortcuts: loaded when opened.
const ReviewPage = lazy(() => import('./pages/ReviewPage').then((module) => ({ default: module.ReviewPage })));

function LazyReview() {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the review queue…
        </p>
      }
    >
      <ReviewPage />
    </Suspense>
  );
}

// The report carries the chart library: loaded when opened.
const ReportPage = lazy(() => import('./pages/ReportPage').then((module) => ({ default: module.ReportPage })));

function LazyReport() {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the report…
        </p>
      }
    >
      <ReportPage />
    </Suspense>
  );
}

function LazyDashboard() {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the dashboard…
        </p>
      }
    >
      <DashboardPage />
    </Suspense>
  );
}

export const router = createBrowserRouter([
  {
    element: <PublicLayout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/tr', element: <TurkishPage /> },
      { path: '/signin', element: <SignInPage /> },
      { path: '/sandbox', element: <SandboxPage /> },
      { path: '/guide', element: <LazyGuide /> },
      { path: '/guide/errors', element: <LazyGuide page="errors" /> },
      { path: '/guide/changelog', element: <LazyGuide page="changelog" /> },
    ],
  },
  {
    path: '/workspace',
    element: <WorkspaceLayout />,
    children: [
      { index: true, element: <LazyDashboard /> },
      { path: 'campaigns', element: <CampaignsPage /> },
      { path: 'campaigns/new', element: <CampaignCreatePage /> },
      { path: 'campaigns/:id', element: <CampaignDetailPage /> },
      { path: 'publishers', element: <PublishersPage /> },
      { path: 'publishers/:id', element: <PublisherDetailPage /> },
      { path: 'audit', element: <AuditPage /> },
      { path: 'report', element: <LazyReport /> },
      { path: 'placements', element: <PlacementsPage /> },
      { path: 'review', element: <LazyReview /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
  { element: <PublicLayout />, children: [{ path: '*', element: <NotFoundPage /> }] },
]);
