"""Actual costs against the plan: FOCUS cost files a team imports (cloud bills, the owned fleet's
costs), compared month by month with an approved scenario's or plan's projection."""
