"""Training recipe for the recogniser (torch, CPU). Only ``make train`` imports this package."""
