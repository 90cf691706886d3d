"""What every app shares: job plumbing, the health check, logging, API parsing and throttling,
and the small helpers of forms, CSV cells and charts."""
