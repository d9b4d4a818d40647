//! `slack`: simulated MCP server (being written).
