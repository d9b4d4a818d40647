//! `postgres`: simulated MCP server (being written).
